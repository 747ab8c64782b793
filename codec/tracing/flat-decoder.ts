// The tracing API's flat body, `{"spans": [...]}`, read straight from its bytes into canonical spans: the
// request path's shortcut past JSON.parse, `flatten` and `validate`'s per-draft checks for the body that
// nearly every client sends (docs/performance.md, round 0520).
//
// Why: JSON.parse builds an object per span, an attribute object, an events array and an event object,
// which validate reads once and drops. That object building (not the bytes) was most of JSON.parse's
// time, and with validate's walk over the objects and their garbage it was about a third of the daemon's
// CPU on flat bodies (decisions 0400, 0440).
//
// It is a shortcut, never a second set of rules: it answers only when the body is valid JSON of the
// form it knows and every span in it is accepted, using the same normalisers and part parsers as
// validate. Anything else (a span validate would reject, a repeated id or member, a member name written
// with escapes, numbers a double cannot hold, a body beyond the span-count limit or near the nesting
// limit) makes it answer `undefined`, and the request takes the general path, which decides everything
// (errors and their order included) as before. The differential test holds the two paths to the same
// spans.
import { isUtf8 } from 'node:buffer';
import { flattenInto } from '../../model/attributes/flatten.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { WorkingBatch } from '../../model/batch.ts';
import { GIVE_UP, giveUp, JsonByteReader } from '../json/byte-reader.ts';
import { parseJsonBytes } from '../json/parse.ts';
import { randomHex, spanIdHex, isZeroSpanId, normaliseSpanId, normaliseTraceId } from '../../model/ids.ts';
import { UniqueKeys } from '../otlp/decode-unique-keys.ts';
import type {
  Attributes, OtlpExtras, Span, SpanEvent, SpanLink, SpanReference, SpanScope,
} from '../../model/span.ts';
import {
  isSpanType, isTraceType, newSpan, spanStatus, SPAN_KIND_BY_NAME, STATUS_CODE_BY_NAME,
} from '../../model/span.ts';
import { digitTimestampAt, parseTimestamp } from './time.ts';
import { attributesOf, parseLinks, parseOtlpExtras, parseReferences, parseScope } from './span-parts.ts';
import { isJsonObject } from './tree.ts';

// The JSON byte codes as local constants, not imports (see byte-reader.ts and docs/performance.md, round 0540).
const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;

export interface FlatLimits {
  /** The receiver's max_spans_per_request: a longer list is the general path's 413. */
  maxSpans: number;
  /** The receiver's max_nesting_depth (the top-level value is depth 1). */
  maxDepth: number;
}

/** Where attribute objects sit: body, spans, span, attributes; and body, spans, span, events, event,
 *  attributes. The decoder reads down to the deeper one itself (nested attribute values below it are
 *  checked against the limit as they are parsed). */
const SPAN_DEPTH = 3;
const SPAN_ATTRIBUTES_DEPTH = 4;
const EVENT_ATTRIBUTES_DEPTH = 6;

const fromCharCode = String.fromCharCode;

/**
 * The body's spans, all accepted, in request order (index i is spans[i]), or undefined when the
 * general path must decide. Never throws on input.
 */
export function decodeFlatSpans(bytes: Uint8Array, limits: FlatLimits): Span[] | undefined {
  if (limits.maxDepth < EVENT_ATTRIBUTES_DEPTH || !isUtf8(bytes)) return undefined;
  const reader = new FlatReader(bytes, limits);
  try {
    return reader.body();
  } catch (e) {
    if (e === GIVE_UP) return undefined;
    throw e;
  }
}

/** The batch for spans this decoder accepted: every span kept at its own index, nothing rejected, and
 *  marked `checked` so that validate leaves it as it is. */
export function acceptedBatch(spans: Span[], receivedNs?: bigint): WorkingBatch {
  const indexes = new Array<number>(spans.length);
  for (let i = 0; i < spans.length; i++) indexes[i] = i;
  return { origin: 'tracing', spans, indexes, rejections: [], receivedNs, checked: true };
}

// ---- member names -----------------------------------------------------------------------------------
/** The span members this decoder reads, numbered for a bit set of those seen. */
const Field = {
  TraceId: 0, SpanId: 1, ParentId: 2, SpanName: 3, SpanKind: 4, StartTime: 5, EndTime: 6, StatusCode: 7,
  StatusMessage: 8, Attributes: 9, Events: 10, SessionId: 11, UserId: 12, SpanType: 13, TraceType: 14,
  Links: 15, References: 16, Resource: 17, Scope: 18, Otlp: 19,
  /** Any other name written without escapes: validate ignores it, so its value only has to be JSON. */
  Other: 20,
} as const;

const SPAN_FIELD_NAMES: ReadonlyArray<readonly [string, number]> = [
  ['trace_id', Field.TraceId], ['span_id', Field.SpanId], ['parent_id', Field.ParentId],
  ['span_name', Field.SpanName], ['span_kind', Field.SpanKind], ['start_time', Field.StartTime],
  ['end_time', Field.EndTime], ['status_code', Field.StatusCode], ['status_message', Field.StatusMessage],
  ['attributes', Field.Attributes], ['events', Field.Events], ['session_id', Field.SessionId],
  ['user_id', Field.UserId], ['span_type', Field.SpanType], ['trace_type', Field.TraceType],
  ['links', Field.Links], ['references', Field.References], ['resource', Field.Resource], ['scope', Field.Scope],
  ['otlp', Field.Otlp],
];

/** The names a member may have, by length: [bytes, what it names]. */
function byLength(names: ReadonlyArray<readonly [string, number]>): Array<Array<[Uint8Array, number]>> {
  const table: Array<Array<[Uint8Array, number]>> = [];
  for (const [name, id] of names) (table[name.length] ??= []).push([Buffer.from(name), id]);
  return table;
}

/** Each name's bytes, by what it names. */
function namesById(names: ReadonlyArray<readonly [string, number]>): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const [name, id] of names) out[id] = Buffer.from(name);
  return out;
}

const SPAN_FIELDS = byLength(SPAN_FIELD_NAMES);
const SPAN_FIELD_BYTES = namesById(SPAN_FIELD_NAMES);
const EVENT_NAME = 0;
const EVENT_TIMESTAMP = 1;
const EVENT_ATTRIBUTES = 2;
const EVENT_FIELD_NAMES: ReadonlyArray<readonly [string, number]> = [
  ['name', EVENT_NAME], ['timestamp', EVENT_TIMESTAMP], ['attributes', EVENT_ATTRIBUTES],
];
const EVENT_FIELDS = byLength(EVENT_FIELD_NAMES);
const EVENT_FIELD_BYTES = namesById(EVENT_FIELD_NAMES);
const SPANS = Buffer.from('spans');

/** Attribute lists checked for repeated keys: one per kind of list, since each compares a list's keys
 *  with the last list's (span lists and event lists differ). */
const spanKeys = new UniqueKeys();
const eventKeys = new UniqueKeys();

/** A key JSON.parse would put first (an array index): Object.keys order then differs from text order. */
function isIndexLike(key: string): boolean {
  if (key.length === 0) return false;
  for (let i = 0; i < key.length; i++) {
    const d = key.charCodeAt(i) - DIGIT_0;
    if (d >>> 0 > 9) return false;
  }
  return true;
}

/**
 * Member k of the previous attribute list of one kind (span or event) in this body, as offsets into the
 * body: spans of a request carry the same keys in the same order and many of the same values, so member
 * k of a list is first compared with member k of the last one (a word-by-word comparison that is also
 * the scan) and, when the bytes are the same, takes the same string. Entries are overwritten as the next
 * list is read: member k only ever looks at entry k.
 */
class ListTemplate {
  /** Entries that hold a member of the last list. */
  size = 0;
  readonly keyAt: number[] = [];
  /** -1: the key held an escape (never compared). */
  readonly keyLength: number[] = [];
  readonly keys: string[] = [];
  readonly valueAt: number[] = [];
  /** -1: no string without escapes was seen at this position. */
  readonly valueLength: number[] = [];
  readonly values: string[] = [];
}

/**
 * An id's raw text (its offset and length in the body; -1: it held escapes, never compared) and what it
 * normalised to. A repeat is a byte comparison instead of a scan and a new string (as validate's
 * per-request memory, docs/performance.md, round 0440). Only accepted ids are remembered.
 */
class IdMemo {
  at = 0;
  length = -1;
  value = '';
}

/** A part validate's parser accepted; its rejection reason (a string) gives up. */
function accepted<T>(part: T | string): T {
  return typeof part === 'string' ? giveUp() : part;
}

/** True when two of keys[0, n) are equal. */
function hasRepeat(keys: string[], n: number): boolean {
  return new Set(keys.slice(0, n)).size !== n;
}

class FlatReader extends JsonByteReader {
  private readonly maxSpans: number;
  private readonly maxDepth: number;
  /** The previous span's trace_id and parent_id: spans of a request nearly always share both. */
  private readonly traceIds = new IdMemo();
  private readonly parentIds = new IdMemo();
  /** The members of the previous span and event, in their order: the k-th name is compared with the
   *  previous one's k-th first. */
  private readonly spanOrder: number[] = [];
  private readonly eventOrder: number[] = [];
  /** Where in the body each of those names was. */
  private readonly spanOrderAt: number[] = [];
  private readonly eventOrderAt: number[] = [];
  private readonly spanAttributes = new ListTemplate();
  private readonly eventAttributes = new ListTemplate();

  constructor(bytes: Uint8Array, limits: FlatLimits) {
    super(bytes);
    this.maxSpans = limits.maxSpans;
    this.maxDepth = limits.maxDepth;
  }

  /** `{"spans": [span, ...]}` and nothing else. */
  body(): Span[] {
    this.expect(OPEN_BRACE);
    this.expect(QUOTE);
    this.scanString();
    if (!this.stringIs(SPANS)) giveUp();
    this.expect(COLON);
    this.expect(OPEN_BRACKET);
    const spans: Span[] = [];
    const seen = new Set<string>();
    if (this.peek() === CLOSE_BRACKET) this.pos++;
    else {
      for (;;) {
        if (spans.length === this.maxSpans) giveUp();
        const span = this.span();
        // A repeated span id: validate's de-duplication decides (and it is rare).
        if (seen.has(span.spanId)) giveUp();
        seen.add(span.spanId);
        spans.push(span);
        const c = this.next();
        if (c === CLOSE_BRACKET) break;
        if (c !== COMMA) giveUp();
      }
    }
    this.expect(CLOSE_BRACE);
    if (this.peek() !== -1) giveUp();
    return spans;
  }

  /** One span object: each member at most once, every value valid, the required ones present. */
  private span(): Span {
    this.expect(OPEN_BRACE);
    let seen = 0;
    let traceId: string | undefined;
    let spanId: string | undefined;
    let parentId: string | undefined;
    let name: string | undefined;
    let kind = 0;
    let startNs: bigint | undefined;
    let endNs: bigint | undefined;
    let code = 0;
    let message: string | undefined;
    let attributes: AttributeList | undefined;
    let events: SpanEvent[] | undefined;
    let sessionId: string | undefined;
    let userId: string | undefined;
    let spanType: string | undefined;
    let traceType: string | undefined;
    let links: SpanLink[] | undefined;
    let references: SpanReference[] | undefined;
    let resource: Attributes | undefined;
    let scope: SpanScope | undefined;
    let otlp: OtlpExtras | undefined;
    if (this.peek() === CLOSE_BRACE) this.pos++;
    else {
      for (let k = 0; ; k++) {
        const field = this.memberName(SPAN_FIELDS, SPAN_FIELD_BYTES, this.spanOrder, this.spanOrderAt, k, Field.Other);
        // Other members may repeat (JSON.parse keeps the last of each, and validate reads none of them).
        const bit = field === Field.Other ? 0 : 1 << field;
        if ((seen & bit) !== 0) giveUp();
        seen |= bit;
        // null is absent (ingest-api.md, terms): as if the member were not there.
        if (!this.isNull()) {
          switch (field) {
            case Field.TraceId: traceId = this.traceId(); break;
            case Field.SpanId: spanId = this.spanId(); break;
            case Field.ParentId: parentId = this.parentId(); break;
            case Field.SpanName: name = this.string(); break;
            case Field.SpanKind: kind = SPAN_KIND_BY_NAME.get(this.string()) ?? giveUp(); break;
            case Field.StartTime: startNs = this.timestamp(); break;
            case Field.EndTime: endNs = this.timestamp(); break;
            case Field.StatusCode: code = STATUS_CODE_BY_NAME.get(this.string()) ?? giveUp(); break;
            case Field.StatusMessage: message = this.string(); break;
            case Field.Attributes: attributes = this.attributes(this.spanAttributes, spanKeys, SPAN_ATTRIBUTES_DEPTH); break;
            case Field.Events: events = this.events(); break;
            case Field.SessionId: sessionId = this.string(); break;
            case Field.UserId: userId = this.string(); break;
            case Field.SpanType: spanType = this.string(); if (!isSpanType(spanType)) giveUp(); break;
            case Field.TraceType: traceType = this.string(); if (!isTraceType(traceType)) giveUp(); break;
            // The rarer members: their values as JSON, read by validate's own parsers.
            case Field.Links: links = accepted(parseLinks(this.memberValue())); break;
            case Field.References: references = accepted(parseReferences(this.memberValue())); break;
            case Field.Resource: {
              const value = this.memberValue();
              if (!isJsonObject(value)) giveUp();
              resource = attributesOf(value);
              break;
            }
            case Field.Scope: scope = accepted(parseScope(this.memberValue())); break;
            case Field.Otlp: otlp = parseOtlpExtras(this.memberValue()); break;
            default: this.memberValue(); break;
          }
        }
        const c = this.next();
        if (c === CLOSE_BRACE) break;
        if (c !== COMMA) giveUp();
      }
    }
    if (traceId === undefined || spanId === undefined || startNs === undefined || endNs === undefined) giveUp();
    const span = newSpan(
      traceId, spanId, name ?? randomHex(12), kind, startNs, endNs, spanStatus(code, message), attributes ?? new AttributeList(),
    );
    span.parentId = parentId;
    span.events = events;
    span.links = links;
    span.references = references;
    span.sessionId = sessionId;
    span.userId = userId;
    span.resource = resource;
    span.scope = scope;
    span.otlp = otlp;
    // Candidates only: `namespace` resolves the final types (ag-namespace.md §4).
    span.spanType = spanType;
    span.traceType = traceType;
    return span;
  }

  private traceId(): string {
    return this.id(this.traceIds, normaliseTraceId);
  }

  /** 16 characters, the usual form, are built by String.fromCharCode (a native slice is a C++ call,
   *  several times dearer: otlp/decode-id.ts); any byte that is not a hex digit makes the normaliser
   *  refuse it, as it refuses the same text decoded as UTF-8. */
  private spanId(): string {
    this.expect(QUOTE);
    this.scanString();
    const at = this.strStart;
    if (this.strEscaped || this.strEnd - at !== 16) return normaliseSpanId(this.plainString()) ?? giveUp();
    const b = this.buf;
    const text = fromCharCode(
      b[at], b[at + 1], b[at + 2], b[at + 3], b[at + 4], b[at + 5], b[at + 6], b[at + 7],
      b[at + 8], b[at + 9], b[at + 10], b[at + 11], b[at + 12], b[at + 13], b[at + 14], b[at + 15],
    );
    return normaliseSpanId(text) ?? giveUp();
  }

  /** The parent's id, undefined for the all-zero id (a root). */
  private parentId(): string | undefined {
    const hex = this.id(this.parentIds, spanIdHex);
    return isZeroSpanId(hex) ? undefined : hex;
  }

  /** A string id, normalised; the same bytes as the memo's last one give its answer again. */
  private id(memo: IdMemo, normalise: (text: string) => string | undefined): string {
    this.expect(QUOTE);
    this.scanString();
    const at = this.strStart;
    const length = this.strEnd - at;
    if (!this.strEscaped && length === memo.length && this.sameBytes(at, memo.at, length)) return memo.value;
    const id = normalise(this.plainString()) ?? giveUp();
    memo.at = at;
    memo.length = this.strEscaped ? -1 : length;
    memo.value = id;
    return id;
  }

  /** A timestamp as validate reads it: a string (epoch digits, read from the bytes, or ISO 8601) or a
   *  safe integer number. */
  private timestamp(): bigint {
    const c = this.peek();
    if (c === QUOTE) {
      this.pos++;
      this.scanString();
      const digits = this.strEscaped ? null : digitTimestampAt(this.buf, this.strStart, this.strEnd);
      if (digits !== null) return digits ?? giveUp();
      return parseTimestamp(this.plainString()) ?? giveUp();
    }
    if (c === MINUS || (c - DIGIT_0) >>> 0 <= 9) return parseTimestamp(this.number()) ?? giveUp();
    return giveUp();
  }

  /** An attribute object (itself at `depth` in the body): flatten's result for it, in text order. */
  private attributes(template: ListTemplate, unique: UniqueKeys, depth: number): AttributeList {
    this.expect(OPEN_BRACE);
    const list = new AttributeList();
    if (this.peek() === CLOSE_BRACE) {
      this.pos++;
      template.size = 0;
      return list;
    }
    const buf = this.buf;
    let nested = false;
    let k = 0;
    for (;; k++) {
      this.expect(QUOTE);
      // The key: the same bytes as the last list's k-th key (and its closing quote) give the same string.
      // (The key and the value below are written out rather than shared through one helper: with both
      // calls, V8 inlined only one of them into this loop, ~2% of decoding, measured in both orders.)
      let at = this.pos;
      let length = k < template.size ? template.keyLength[k] : -1;
      let key: string;
      if (length >= 0 && at + length < this.end && buf[at + length] === QUOTE && this.sameBytes(at, template.keyAt[k], length)) {
        key = template.keys[k];
        this.pos = at + length + 1;
      } else {
        this.scanString();
        key = this.cachedString();
        if (isIndexLike(key)) giveUp();
        length = this.strEscaped ? -1 : this.strEnd - at;
      }
      template.keyAt[k] = at;
      template.keyLength[k] = length;
      template.keys[k] = key;
      this.expect(COLON);
      // The value: likewise for a string.
      if (this.peek() === QUOTE) {
        let value: string;
        at = ++this.pos;
        length = k < template.size ? template.valueLength[k] : -1;
        if (length >= 0 && at + length < this.end && buf[at + length] === QUOTE && this.sameBytes(at, template.valueAt[k], length)) {
          value = template.values[k];
          this.pos = at + length + 1;
        } else {
          this.scanString();
          value = this.cachedString();
          length = this.strEscaped ? -1 : this.strEnd - at;
        }
        template.valueAt[k] = at;
        template.valueLength[k] = length;
        template.values[k] = value;
        list.append(key, value);
      } else {
        // Entry k keeps the last string seen at k: still the text at its offset, so still comparable.
        const c = this.peek();
        if (c === OPEN_BRACE || c === OPEN_BRACKET) {
          // Parsed on its own by the general path's parser and expanded by flatten itself, so it comes
          // out as the general path makes it.
          flattenInto(this.parsedValue(depth), key, list);
          nested = true;
        } else {
          list.append(key, this.scalar());
        }
      }
      const c = this.next();
      if (c === CLOSE_BRACE) break;
      if (c !== COMMA) giveUp();
    }
    template.size = k + 1;
    // JSON.parse keeps only the last value of a repeated key, and flatten then expands that one. Where
    // one of the values was nested, expanding each as it came differs from that: the general path decides.
    if (nested && hasRepeat(template.keys, k + 1)) giveUp();
    // A repeated key: the last value at the first position, as JSON.parse and then flatten give it.
    unique.settle(list);
    return list;
  }

  private events(): SpanEvent[] {
    this.expect(OPEN_BRACKET);
    const events: SpanEvent[] = [];
    if (this.peek() === CLOSE_BRACKET) {
      this.pos++;
      return events;
    }
    for (;;) {
      events.push(this.event());
      const c = this.next();
      if (c === CLOSE_BRACKET) break;
      if (c !== COMMA) giveUp();
    }
    return events;
  }

  private event(): SpanEvent {
    this.expect(OPEN_BRACE);
    let seen = 0;
    let name: string | undefined;
    let timeNs: bigint | undefined;
    let attributes: AttributeList | undefined;
    if (this.peek() === CLOSE_BRACE) this.pos++;
    else {
      for (let k = 0; ; k++) {
        const field = this.memberName(EVENT_FIELDS, EVENT_FIELD_BYTES, this.eventOrder, this.eventOrderAt, k, -1);
        const bit = 1 << field;
        if ((seen & bit) !== 0) giveUp();
        seen |= bit;
        if (!this.isNull()) {
          if (field === EVENT_NAME) name = this.string();
          else if (field === EVENT_TIMESTAMP) timeNs = this.timestamp();
          else attributes = this.attributes(this.eventAttributes, eventKeys, EVENT_ATTRIBUTES_DEPTH);
        }
        const c = this.next();
        if (c === CLOSE_BRACE) break;
        if (c !== COMMA) giveUp();
      }
    }
    if (name === undefined || timeNs === undefined) giveUp();
    return { name, timeNs, attributes: attributes ?? new AttributeList() };
  }


  /**
   * The next value as JSON.parse gives it: an object or array parsed on its own by the general path's
   * parser (exact wide integers, the nesting limit for a member of a span), a scalar as read here.
   */
  private memberValue(): unknown {
    const c = this.peek();
    return c === OPEN_BRACE || c === OPEN_BRACKET ? this.parsedValue(SPAN_DEPTH) : this.scalar();
  }

  /** The object or array that starts here, inside a container at `depth`, parsed on its own text (exact
   *  wide integers, the nesting limit for where it sits). */
  private parsedValue(depth: number): unknown {
    const start = this.pos;
    this.skipNested();
    const parsed = parseJsonBytes(this.buf.subarray(start, this.pos), this.maxDepth - depth);
    return parsed.ok ? parsed.value : giveUp();
  }

  /**
   * A member name from `table` and its colon; any other name is `other`, or gives up when `other` is
   * -1. The name in position k of the previous object of this kind (`order`) is tried first: a
   * comparison instead of a scan.
   */
  private memberName(
    table: Array<Array<[Uint8Array, number]>>, names: Uint8Array[], order: number[], orderAt: number[], k: number, other: number,
  ): number {
    this.expect(QUOTE);
    const at = this.pos;
    const predicted = k < order.length ? order[k] : -1;
    if (predicted >= 0) {
      // Compared with the previous object's k-th name in the body, a word at a time.
      const length = names[predicted].length;
      if (at + length < this.end && this.buf[at + length] === QUOTE && this.sameBytes(at, orderAt[k], length)) {
        orderAt[k] = at;
        this.pos = at + length + 1;
        this.expect(COLON);
        return predicted;
      }
    }
    this.scanString();
    // A name written with escapes may spell a known one: the general path reads those.
    if (this.strEscaped) giveUp();
    const candidates = table[this.strEnd - at];
    if (candidates !== undefined) {
      for (let c = 0; c < candidates.length; c++) {
        if (this.sameAs(candidates[c][0], at)) {
          this.expect(COLON);
          order[k] = candidates[c][1];
          orderAt[k] = at;
          return candidates[c][1];
        }
      }
    }
    if (other < 0) giveUp();
    this.expect(COLON);
    order[k] = -1;
    return other;
  }
}
