// ExportTraceServiceRequest (protobuf) -> canonical spans, in one pass over the bytes with no
// intermediate message objects. A ProtoDecoder keeps what it remembers from request to request (the
// attribute cache, the string cache, the last ids, the last key lists): one per receiver. Field numbers
// are those of opentelemetry-proto (collector/trace/v1, trace/v1, common/v1, resource/v1); unknown
// fields are skipped.
//
// Decoding judges only the wire format. Whether a span is acceptable (id lengths, zero ids, times,
// enum ranges) is the receiver rules' call (rules.ts, otlp.md), so ids are kept as the hex of whatever
// bytes came, enums as the numbers that came, and absent times as 0n.
import { newSpan, spanStatus, type AttrScalar, type AttrValue, type Attributes, type OtlpExtras, type Span, type SpanEvent, type SpanLink, type SpanScope } from '../../model/span.ts';
import { flattenInto } from '../../model/attributes/flatten.ts';
import { AttributeListBuilder } from '../../model/attributes/builder.ts';
import { AttributeCache, attributeHash } from './decode-attribute-cache.ts';
import { StringCache } from '../bytes/string-cache.ts';
import { IdHex } from './decode-id.ts';
import { UniqueKeys } from './decode-unique-keys.ts';
import { MAX_VALUE_DEPTH, OtlpSpanLimitError } from './errors.ts';
import { ProtoReader, WIRE_FIXED32, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from './proto-reader.ts';

export interface DecodedRequest {
  spans: Span[];
}

// Tags (field number << 3 | wire type) of the fields read here.
const T_REQUEST_RESOURCE_SPANS = (1 << 3) | WIRE_LEN;

const T_RS_RESOURCE = (1 << 3) | WIRE_LEN;
const T_RS_SCOPE_SPANS = (2 << 3) | WIRE_LEN;
const T_RS_SCHEMA_URL = (3 << 3) | WIRE_LEN;

const T_RESOURCE_ATTRIBUTES = (1 << 3) | WIRE_LEN;

const T_SS_SCOPE = (1 << 3) | WIRE_LEN;
const T_SS_SPANS = (2 << 3) | WIRE_LEN;
const T_SS_SCHEMA_URL = (3 << 3) | WIRE_LEN;

const T_SCOPE_NAME = (1 << 3) | WIRE_LEN;
const T_SCOPE_VERSION = (2 << 3) | WIRE_LEN;
const T_SCOPE_ATTRIBUTES = (3 << 3) | WIRE_LEN;

const T_SPAN_TRACE_ID = (1 << 3) | WIRE_LEN;
const T_SPAN_SPAN_ID = (2 << 3) | WIRE_LEN;
const T_SPAN_TRACE_STATE = (3 << 3) | WIRE_LEN;
const T_SPAN_PARENT_SPAN_ID = (4 << 3) | WIRE_LEN;
const T_SPAN_NAME = (5 << 3) | WIRE_LEN;
const T_SPAN_KIND = (6 << 3) | WIRE_VARINT;
const T_SPAN_START = (7 << 3) | WIRE_FIXED64;
const T_SPAN_END = (8 << 3) | WIRE_FIXED64;
const T_SPAN_ATTRIBUTES = (9 << 3) | WIRE_LEN;
const T_SPAN_DROPPED_ATTRIBUTES = (10 << 3) | WIRE_VARINT;
const T_SPAN_EVENTS = (11 << 3) | WIRE_LEN;
const T_SPAN_DROPPED_EVENTS = (12 << 3) | WIRE_VARINT;
const T_SPAN_LINKS = (13 << 3) | WIRE_LEN;
const T_SPAN_DROPPED_LINKS = (14 << 3) | WIRE_VARINT;
const T_SPAN_STATUS = (15 << 3) | WIRE_LEN;
const T_SPAN_FLAGS = (16 << 3) | WIRE_FIXED32;

const T_EVENT_TIME = (1 << 3) | WIRE_FIXED64;
const T_EVENT_NAME = (2 << 3) | WIRE_LEN;
const T_EVENT_ATTRIBUTES = (3 << 3) | WIRE_LEN;
const T_EVENT_DROPPED_ATTRIBUTES = (4 << 3) | WIRE_VARINT;

const T_LINK_TRACE_ID = (1 << 3) | WIRE_LEN;
const T_LINK_SPAN_ID = (2 << 3) | WIRE_LEN;
const T_LINK_TRACE_STATE = (3 << 3) | WIRE_LEN;
const T_LINK_ATTRIBUTES = (4 << 3) | WIRE_LEN;
const T_LINK_DROPPED_ATTRIBUTES = (5 << 3) | WIRE_VARINT;
const T_LINK_FLAGS = (6 << 3) | WIRE_FIXED32;

const T_STATUS_MESSAGE = (2 << 3) | WIRE_LEN;
const T_STATUS_CODE = (3 << 3) | WIRE_VARINT;

const T_KV_KEY = (1 << 3) | WIRE_LEN;
const T_KV_VALUE = (2 << 3) | WIRE_LEN;

const T_ANY_STRING = (1 << 3) | WIRE_LEN;
const T_ANY_BOOL = (2 << 3) | WIRE_VARINT;
const T_ANY_INT = (3 << 3) | WIRE_VARINT;
const T_ANY_DOUBLE = (4 << 3) | WIRE_FIXED64;
const T_ANY_ARRAY = (5 << 3) | WIRE_LEN;
const T_ANY_KVLIST = (6 << 3) | WIRE_LEN;
const T_ANY_BYTES = (7 << 3) | WIRE_LEN;

const T_LIST_VALUES = (1 << 3) | WIRE_LEN;

/** Runs `read` over the length-delimited message at the reader's position. */
function enter(r: ProtoReader): number {
  const len = r.length();
  const saved = r.end;
  r.end = r.pos + len;
  return saved;
}

function leave(r: ProtoReader, saved: number): void {
  r.pos = r.end;
  r.end = saved;
}

export class ProtoDecoder {
  private readonly attributeCache = new AttributeCache();
  private readonly ids = new IdHex();
  /** The repeat checks of span and event attributes (decode-unique-keys.ts). */
  private readonly spanKeys = new UniqueKeys();
  private readonly eventKeys = new UniqueKeys();
  /**
   * Where the attributes of a span, of an event or link (read while a span is, so apart), and of a
   * resource or scope are built (model/attributes/builder.ts: lists of their exact size).
   */
  private readonly spanAttributes = new AttributeListBuilder();
  private readonly innerAttributes = new AttributeListBuilder();
  private readonly otherAttributes = new AttributeListBuilder();
  /** The short strings of this decoder's requests (string-cache.ts), handed to each reader it makes. */
  private readonly strings = new StringCache();
  /** The most spans one request may hold (the receiver's max_spans_per_request). */
  private readonly maxSpans: number;
  /** The most values (attributes, array and kvlist elements, events, links): max_values_per_request. */
  private readonly maxValues: number;

  constructor(maxSpans = Number.POSITIVE_INFINITY, maxValues = Number.POSITIVE_INFINITY) {
    this.maxSpans = maxSpans;
    this.maxValues = maxValues;
  }

  /**
   * Decodes an ExportTraceServiceRequest. Throws OtlpDecodeError when the bytes are not a well-formed
   * message (truncated, a length past its parent, a bad wire type, values nested too deeply), and
   * OtlpSpanLimitError when it holds more spans than `maxSpans`, OtlpValueLimitError when more values
   * than `maxValues` (each counted before it is built).
   */
  decode(bytes: Uint8Array): DecodedRequest {
    const r = new ProtoReader(bytes, this.strings);
    r.valuesLeft = r.maxValues = this.maxValues;
    // A request that failed part way left its members behind.
    this.spanAttributes.clear();
    this.innerAttributes.clear();
    this.otherAttributes.clear();
    const spans: Span[] = [];
    while (r.pos < r.end) {
      const tag = r.tag();
      if (tag === T_REQUEST_RESOURCE_SPANS) {
        const saved = enter(r);
        this.readResourceSpans(r, spans);
        leave(r, saved);
      } else r.skip(tag & 7, tag >>> 3);
    }
    return { spans };
  }

  /**
   * ResourceSpans, and ScopeSpans below it, in two passes: the resource (1) and schema_url (3) of a
   * ResourceSpans apply to every span of its scope_spans (2), and the scope (1) and schema_url (3) of a
   * ScopeSpans to every span (2) of it, in whatever order they come (encoders write the urls last). A
   * first pass finds them, a second decodes the spans.
   */
  private readResourceSpans(r: ProtoReader, out: Span[]): void {
    const start = r.pos;
    let resource: Attributes | undefined;
    let schemaUrl = '';
    let anyScopeSpans = false;
    while (r.pos < r.end) {
      const tag = r.tag();
      if (tag === T_RS_RESOURCE) {
        const saved = enter(r);
        resource = this.readResource(r);
        leave(r, saved);
      } else if (tag === T_RS_SCHEMA_URL) schemaUrl = r.string();
      else {
        if (tag === T_RS_SCOPE_SPANS) anyScopeSpans = true;
        r.skip(tag & 7, tag >>> 3);
      }
    }
    if (!anyScopeSpans) return;
    r.pos = start;
    while (r.pos < r.end) {
      const tag = r.tag();
      if (tag === T_RS_SCOPE_SPANS) {
        const saved = enter(r);
        this.readScopeSpans(r, out, resource, schemaUrl);
        leave(r, saved);
      } else r.skip(tag & 7, tag >>> 3);
    }
  }

  private readResource(r: ProtoReader): Attributes | undefined {
    let any = false;
    while (r.pos < r.end) {
      const tag = r.tag();
      if (tag === T_RESOURCE_ATTRIBUTES) {
        any = true;
        this.readKeyValue(r, this.otherAttributes);
      } else r.skip(tag & 7, tag >>> 3);
    }
    const attrs = any ? this.otherAttributes.finish() : undefined;
    attrs?.dropRepeats();
    return attrs !== undefined && attrs.size > 0 ? attrs : undefined;
  }

  /** ScopeSpans: scope (1) and schema_url (3) first, as for ResourceSpans, then the spans (2). */
  private readScopeSpans(r: ProtoReader, out: Span[], resource: Attributes | undefined, resourceSchemaUrl: string): void {
    const start = r.pos;
    let scope: SpanScope | undefined;
    let schemaUrl = '';
    let spans = 0;
    while (r.pos < r.end) {
      const tag = r.tag();
      if (tag === T_SS_SCOPE) {
        const saved = enter(r);
        scope = this.readScope(r);
        leave(r, saved);
      } else if (tag === T_SS_SCHEMA_URL) schemaUrl = r.string();
      else {
        if (tag === T_SS_SPANS) spans++;
        r.skip(tag & 7, tag >>> 3);
      }
    }
    if (spans === 0) return;
    // Counted before any is decoded: a body of millions of tiny spans builds none of them.
    if (out.length + spans > this.maxSpans) throw new OtlpSpanLimitError(this.maxSpans);
    r.pos = start;
    while (r.pos < r.end) {
      const tag = r.tag();
      if (tag === T_SS_SPANS) {
        const saved = enter(r);
        out.push(this.readSpan(r, resource, scope, resourceSchemaUrl, schemaUrl));
        leave(r, saved);
      } else r.skip(tag & 7, tag >>> 3);
    }
  }

  private readScope(r: ProtoReader): SpanScope | undefined {
    let name = '';
    let version = '';
    let any = false;
    while (r.pos < r.end) {
      const tag = r.tag();
      if (tag === T_SCOPE_NAME) name = r.string();
      else if (tag === T_SCOPE_VERSION) version = r.string();
      else if (tag === T_SCOPE_ATTRIBUTES) {
        any = true;
        this.readKeyValue(r, this.otherAttributes);
      } else r.skip(tag & 7, tag >>> 3);
    }
    const attrs = any ? this.otherAttributes.finish() : undefined;
    attrs?.dropRepeats();
    const hasAttrs = attrs !== undefined && attrs.size > 0;
    if (name === '' && version === '' && !hasAttrs) return undefined;
    const scope: SpanScope = { name };
    if (version !== '') scope.version = version;
    if (hasAttrs) scope.attributes = attrs;
    return scope;
  }

  /** The hex of a length-delimited bytes field holding a parent span id (decode-id.ts). */
  private readParentId(r: ProtoReader): string {
    const len = r.length();
    const start = r.pos;
    r.pos += len;
    return this.ids.parentId(r.buf, start, len);
  }

  /** The hex of a length-delimited bytes field. */
  private readId(r: ProtoReader): string {
    const len = r.length();
    const start = r.pos;
    r.pos += len;
    return this.ids.id(r.buf, start, len);
  }

  private readSpan(
    r: ProtoReader,
    resource: Attributes | undefined,
    scope: SpanScope | undefined,
    resourceSchemaUrl: string,
    scopeSchemaUrl: string,
  ): Span {
    let traceId = '';
    let spanId = '';
    let parentId = '';
    let traceState = '';
    let name = '';
    let kind = 0;
    let startNs = 0n;
    let endNs = 0n;
    let flags = 0;
    let droppedAttributes = 0;
    let droppedEvents = 0;
    let droppedLinks = 0;
    let statusCode = 0;
    let statusMessage = '';
    const building = this.spanAttributes;
    let events: SpanEvent[] | undefined;
    let links: SpanLink[] | undefined;
    while (r.pos < r.end) {
      const tag = r.tag();
      switch (tag) {
        case T_SPAN_TRACE_ID: traceId = this.readId(r); break;
        case T_SPAN_SPAN_ID: spanId = this.readId(r); break;
        case T_SPAN_TRACE_STATE: traceState = r.string(); break;
        case T_SPAN_PARENT_SPAN_ID: parentId = this.readParentId(r); break;
        case T_SPAN_NAME: name = r.string(); break;
        case T_SPAN_KIND: kind = r.int32(); break;
        case T_SPAN_START: startNs = r.fixed64(); break;
        case T_SPAN_END: endNs = r.fixed64(); break;
        case T_SPAN_ATTRIBUTES: this.readKeyValue(r, building); break;
        case T_SPAN_DROPPED_ATTRIBUTES: droppedAttributes = r.uint32(); break;
        case T_SPAN_EVENTS: {
          const saved = enter(r);
          // A one-element literal, not `[]` then push (which reserves 17 slots): most spans have one event.
          const event = this.readEvent(r);
          if (events === undefined) events = [event];
          else events.push(event);
          leave(r, saved);
          break;
        }
        case T_SPAN_DROPPED_EVENTS: droppedEvents = r.uint32(); break;
        case T_SPAN_LINKS: {
          const saved = enter(r);
          (links ??= []).push(this.readLink(r));
          leave(r, saved);
          break;
        }
        case T_SPAN_DROPPED_LINKS: droppedLinks = r.uint32(); break;
        case T_SPAN_STATUS: {
          const saved = enter(r);
          while (r.pos < r.end) {
            const t = r.tag();
            if (t === T_STATUS_CODE) statusCode = r.int32();
            else if (t === T_STATUS_MESSAGE) statusMessage = r.string();
            else r.skip(t & 7, t >>> 3);
          }
          leave(r, saved);
          break;
        }
        case T_SPAN_FLAGS: flags = r.fixed32(); break;
        default: r.skip(tag & 7, tag >>> 3);
      }
    }
    const attributes = building.finish();
    this.spanKeys.settle(attributes);
    // newSpan: every field, so one hidden class for all spans (model/span.ts SPAN_FIELDS).
    const status = spanStatus(statusCode, statusMessage === '' ? undefined : statusMessage);
    const span = newSpan(traceId, spanId, name, kind, startNs, endNs, status, attributes);
    // Empty parent bytes mean a root (otlp.md); all-zero ones are the rules' to judge.
    if (parentId !== '') span.parentId = parentId;
    if (events !== undefined) span.events = events;
    if (links !== undefined) span.links = links;
    if (resource !== undefined) span.resource = resource;
    if (scope !== undefined) span.scope = scope;
    if (traceState !== '' || flags !== 0 || droppedAttributes !== 0 || droppedEvents !== 0 || droppedLinks !== 0
      || resourceSchemaUrl !== '' || scopeSchemaUrl !== '') {
      const otlp: OtlpExtras = {};
      if (traceState !== '') otlp.traceState = traceState;
      if (flags !== 0) otlp.flags = flags;
      if (droppedAttributes !== 0) otlp.droppedAttributesCount = droppedAttributes;
      if (droppedEvents !== 0) otlp.droppedEventsCount = droppedEvents;
      if (droppedLinks !== 0) otlp.droppedLinksCount = droppedLinks;
      if (resourceSchemaUrl !== '') otlp.resourceSchemaUrl = resourceSchemaUrl;
      if (scopeSchemaUrl !== '') otlp.scopeSchemaUrl = scopeSchemaUrl;
      span.otlp = otlp;
    }
    return span;
  }

  private readEvent(r: ProtoReader): SpanEvent {
    r.spendValue();
    let timeNs = 0n;
    let name = '';
    let dropped = 0;
    while (r.pos < r.end) {
      const tag = r.tag();
      if (tag === T_EVENT_TIME) timeNs = r.fixed64();
      else if (tag === T_EVENT_NAME) name = r.string();
      else if (tag === T_EVENT_ATTRIBUTES) this.readKeyValue(r, this.innerAttributes);
      else if (tag === T_EVENT_DROPPED_ATTRIBUTES) dropped = r.uint32();
      else r.skip(tag & 7, tag >>> 3);
    }
    const attributes = this.innerAttributes.finish();
    this.eventKeys.settle(attributes);
    const event: SpanEvent = { name, timeNs, attributes };
    if (dropped !== 0) event.droppedAttributesCount = dropped;
    return event;
  }

  private readLink(r: ProtoReader): SpanLink {
    r.spendValue();
    let traceId = '';
    let spanId = '';
    let traceState = '';
    let flags = 0;
    let dropped = 0;
    while (r.pos < r.end) {
      const tag = r.tag();
      if (tag === T_LINK_TRACE_ID) traceId = this.readId(r);
      else if (tag === T_LINK_SPAN_ID) spanId = this.readId(r);
      else if (tag === T_LINK_TRACE_STATE) traceState = r.string();
      else if (tag === T_LINK_ATTRIBUTES) this.readKeyValue(r, this.innerAttributes);
      else if (tag === T_LINK_DROPPED_ATTRIBUTES) dropped = r.uint32();
      else if (tag === T_LINK_FLAGS) flags = r.fixed32();
      else r.skip(tag & 7, tag >>> 3);
    }
    const attributes = this.innerAttributes.finish();
    attributes.dropRepeats();
    const link: SpanLink = { traceId, spanId, attributes };
    if (traceState !== '') link.traceState = traceState;
    if (flags !== 0) link.flags = flags;
    if (dropped !== 0) link.droppedAttributesCount = dropped;
    return link;
  }

  /** A KeyValue message at the reader's position (its tag was read) into `out`, flattened. */
  private readKeyValue(r: ProtoReader, out: AttributeListBuilder): void {
    r.spendValue();
    const saved = enter(r);
    const start = r.pos;
    const size = r.end - start;
    // The same KeyValue bytes as lately: the same key and scalar value (decode-attribute-cache.ts).
    const hash = attributeHash(r.buf, r.view, start, size);
    const cache = this.attributeCache;
    if (hash !== 0 && cache.has(hash, r.buf, r.view, start, size)) {
      out.append(cache.key(hash), cache.value(hash));
      leave(r, saved);
      return;
    }
    let key = '';
    let value: Decoded = null;
    while (r.pos < r.end) {
      const tag = r.tag();
      if (tag === T_KV_KEY) key = r.string();
      else if (tag === T_KV_VALUE) {
        const s = enter(r);
        value = readAnyValue(r, 0);
        leave(r, s);
      } else r.skip(tag & 7, tag >>> 3);
    }
    leave(r, saved);
    if (value === null || typeof value !== 'object') {
      out.append(key, value);
      if (hash !== 0) cache.remember(hash, r.buf, r.view, start, size, key, value);
    } else setValue(out, key, value);
  }
}

// ---- attributes ---------------------------------------------------------------------------------

/**
 * A decoded AnyValue: a scalar, an array of scalars, or (for kvlists and arrays holding kvlists or
 * arrays) a value for `flattenInto`: a kvlist is an ordered Map, an array a plain array.
 */
type Decoded = AttrValue | Map<string, unknown> | unknown[];

/**
 * Adds a decoded value: scalars and arrays of scalars as they are, anything nested flattened. Members
 * are appended and the finished list is settled (UniqueKeys); flattenInto sets, so repeats appended
 * before are settled first, for `set` to find the one member of a key.
 */
function setValue(out: AttributeListBuilder, key: string, value: Decoded): void {
  if (isComplex(value)) {
    const list = out.asList();
    list.dropRepeats();
    flattenInto(value, key, list);
  } else out.append(key, value as AttrValue);
}

/** True for a kvlist (Map), or an array that holds a kvlist or an array. */
function isComplex(v: Decoded): boolean {
  if (v instanceof Map) return true;
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) {
    const e = v[i];
    if (e !== null && typeof e === 'object') return true;
  }
  return false;
}

/** AnyValue -> value (the message's bounds are set). An empty AnyValue is null (ag-namespace §1.1). */
function readAnyValue(r: ProtoReader, depth: number): Decoded {
  let value: Decoded = null;
  // A oneof: the last value field on the wire wins, as protobuf merging says.
  while (r.pos < r.end) {
    const tag = r.tag();
    switch (tag) {
      case T_ANY_STRING: value = r.string(); break;
      case T_ANY_BOOL: value = r.bool(); break;
      case T_ANY_INT: value = r.int64(); break;
      case T_ANY_DOUBLE: {
        const d = r.double();
        value = Number.isFinite(d) ? d : String(d);
        break;
      }
      case T_ANY_BYTES: {
        const len = r.length();
        value = r.buf.toString('base64', r.pos, r.pos + len);
        r.pos += len;
        break;
      }
      case T_ANY_ARRAY: {
        if (depth >= MAX_VALUE_DEPTH) r.fail(`values nested deeper than ${MAX_VALUE_DEPTH}`);
        const saved = enter(r);
        value = readArray(r, depth + 1);
        leave(r, saved);
        break;
      }
      case T_ANY_KVLIST: {
        if (depth >= MAX_VALUE_DEPTH) r.fail(`values nested deeper than ${MAX_VALUE_DEPTH}`);
        const saved = enter(r);
        value = readKvList(r, depth + 1);
        leave(r, saved);
        break;
      }
      default: r.skip(tag & 7, tag >>> 3);
    }
  }
  return value;
}

function readArray(r: ProtoReader, depth: number): AttrScalar[] | unknown[] {
  const out: unknown[] = [];
  while (r.pos < r.end) {
    const tag = r.tag();
    if (tag === T_LIST_VALUES) {
      r.spendValue();
      const saved = enter(r);
      out.push(readAnyValue(r, depth));
      leave(r, saved);
    } else r.skip(tag & 7, tag >>> 3);
  }
  return out;
}

function readKvList(r: ProtoReader, depth: number): Map<string, unknown> {
  const out = new Map<string, unknown>();
  while (r.pos < r.end) {
    const tag = r.tag();
    if (tag === T_LIST_VALUES) {
      r.spendValue();
      const saved = enter(r);
      let key = '';
      let value: Decoded = null;
      while (r.pos < r.end) {
        const t = r.tag();
        if (t === T_KV_KEY) key = r.string();
        else if (t === T_KV_VALUE) {
          const s = enter(r);
          value = readAnyValue(r, depth);
          leave(r, s);
        } else r.skip(t & 7, t >>> 3);
      }
      leave(r, saved);
      out.set(key, value);
    } else r.skip(tag & 7, tag >>> 3);
  }
  return out;
}
