// A tracing API request body read straight from its bytes into the members the rest of the request path
// reads: the body's `spans` or `traces`, each trace's `spans`, and each span's and event's members, as
// JSON.parse would give them, with one difference: the `attributes` object of a span and of an event
// arrives already flattened (an AttributeList, ag-namespace.md §1.2). Members nothing reads (unknown
// names) are checked as JSON and skipped. Everything after the reader (the body's shape, the span-count
// limit, the tree walk, the span checks) reads its result, so there is one way a tracing body becomes
// spans.
//
// Why not JSON.parse and then flatten: JSON.parse builds an object per attribute object only for flatten
// to walk it once and drop it, and that building plus the walk cost about a third more CPU per span on
// flat bodies than reading the bytes once (docs/performance.md).
//
// The reader accepts exactly the text JSON.parse accepts, within the nesting limit; for anything else it
// answers `undefined` and the caller asks codec/json/parse.ts for the answer (which of 413 or 422, and
// JSON.parse's own message), so error answers come from the same place as for every other JSON body.
// Numbers come out as JSON.parse with parse.ts's exact reviver gives them: integers a double cannot hold
// are `bigint`.
import { isUtf8 } from 'node:buffer';
import { flattenObject } from '../../model/attributes/flatten.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { AttrScalar } from '../../model/span.ts';
import { StringCache } from '../bytes/string-cache.ts';
import { GIVE_UP, JsonByteReader } from '../json/byte-reader.ts';
import { UniqueKeys } from '../otlp/decode-unique-keys.ts';
import { MemberNames, SPAN_MEMBERS, SpanMembers, EVENT_MEMBERS, EventMembers } from './members.ts';
import { CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from '../bytes/ascii.ts';
import { setMember } from '../../model/set-member.ts';


/** A member name JSON.parse would not keep in text order (array indexes come first), or may be one. */
function isDigits(key: string): boolean {
  if (key.length === 0) return false;
  for (let i = 0; i < key.length; i++) {
    if ((key.charCodeAt(i) - 0x30) >>> 0 > 9) return false;
  }
  return true;
}

/**
 * Reads tracing API bodies for one receiver. It keeps, across requests, the strings that repeat (names,
 * enum-like values) and which attribute keys the last span and the last event had (UniqueKeys: a list
 * with the same keys needs no check for repeats).
 */
export class TracingBodyReader {
  readonly #maxDepth: number;
  readonly #maxValues: number;
  readonly #strings = new StringCache();
  readonly #spanKeys = new UniqueKeys();
  readonly #eventKeys = new UniqueKeys();

  /** `maxValues`: objects and arrays the reader may build; past it the body is refused like one too deep. */
  constructor(maxDepth: number, maxValues = Number.POSITIVE_INFINITY) {
    this.#maxDepth = maxDepth;
    this.#maxValues = maxValues;
  }

  /**
   * `tracing`: a tracing API body (an object whose `spans` / `traces` are read as described at the top;
   * anything else as JSON.parse gives it). Otherwise any JSON value, as JSON.parse gives it. Undefined
   * when the bytes are not UTF-8 JSON within the nesting limit and the value limit (parseJsonBytes says
   * which).
   */
  read(bytes: Uint8Array, tracing: boolean): unknown {
    if (!isUtf8(bytes)) return undefined;
    const reader = new BodyReader(bytes, this.#strings, this.#maxDepth, this.#maxValues, this.#spanKeys, this.#eventKeys);
    try {
      return tracing ? reader.body() : reader.any();
    } catch (e) {
      if (e === GIVE_UP) return undefined;
      throw e;
    }
  }
}

/**
 * String positions of the last object of one kind in this body, by member position k: spans of a
 * request carry the same members in the same order and many of the same values, so the k-th name or
 * value is first compared with the last one's k-th (a word-at-a-time comparison that is also the scan),
 * and the same bytes give the same string without decoding it again.
 */
class Template {
  readonly at: number[] = [];
  /** -1: nothing comparable (none yet, or it held escapes). */
  readonly length: number[] = [];
  readonly text: string[] = [];
}

/** One body: the position memories refer to its bytes, so they live as long as it does. */
class BodyReader extends JsonByteReader {
  readonly #maxDepth: number;
  readonly #maxValues: number;
  /** Objects and arrays built so far (skipped members are not built, so not counted). */
  #containers = 0;
  readonly #spanKeys: UniqueKeys;
  readonly #eventKeys: UniqueKeys;
  /** Member ids of the last span and event, by position (-1: an unknown name). */
  readonly #spanOrder: number[] = [];
  readonly #eventOrder: number[] = [];
  readonly #spanValues = new Template();
  readonly #spanAttributeKeys = new Template();
  readonly #spanAttributeValues = new Template();
  readonly #eventAttributeKeys = new Template();
  readonly #eventAttributeValues = new Template();

  constructor(bytes: Uint8Array, strings: StringCache, maxDepth: number, maxValues: number, spanKeys: UniqueKeys, eventKeys: UniqueKeys) {
    super(bytes, strings);
    this.#maxDepth = maxDepth;
    this.#maxValues = maxValues;
    this.#spanKeys = spanKeys;
    this.#eventKeys = eventKeys;
  }

  /** The whole body: an object whose `spans` is a list of spans and whose `traces` maps trace keys to
   *  `{spans: children}`; other top-level values as JSON.parse gives them. */
  body(): unknown {
    const value = this.peek() === OPEN_BRACE ? this.object(1, BODY) : this.value(1);
    this.end_();
    return value;
  }

  /** Any JSON value, and nothing after it. */
  any(): unknown {
    const value = this.value(1);
    this.end_();
    return value;
  }

  private end_(): void {
    if (this.peek() !== -1) throw GIVE_UP;
  }

  /** A container opening at `depth`: refused beyond the nesting or the value limit (the caller answers 413). */
  private open(depth: number): void {
    if (depth > this.#maxDepth || ++this.#containers > this.#maxValues) throw GIVE_UP;
    this.pos++;
  }

  // ---- generic JSON ---------------------------------------------------------------------------------

  /** The value that starts here, as JSON.parse gives it; a container opening here is at `depth`. */
  private value(depth: number): unknown {
    const c = this.peek();
    if (c === OPEN_BRACE) return this.object(depth, ANY);
    if (c === OPEN_BRACKET) return this.array(depth, ANY);
    return this.scalar();
  }

  /**
   * An object; its members as `kind` reads them. Built by assignment, so member order and repeated
   * names come out as JSON.parse makes them (array-index names first, a repeat's last value at its first
   * position): JavaScript's own object rules.
   */
  private object(depth: number, kind: Kind): Record<string, unknown> {
    this.open(depth);
    const out: Record<string, unknown> = {};
    if (this.peek() === CLOSE_BRACE) {
      this.pos++;
      return out;
    }
    for (;;) {
      const key = this.memberName();
      const value = kind === ANY ? this.value(depth + 1) : this.member(depth + 1, kind, key);
      // As JSON.parse: `__proto__` is an own member, not the prototype.
      setMember(out, key, value);
      const c = this.next();
      if (c === CLOSE_BRACE) return out;
      if (c !== COMMA) throw GIVE_UP;
    }
  }

  /** An array; its elements as `kind` reads them. */
  private array(depth: number, kind: Kind): unknown[] {
    this.open(depth);
    const out: unknown[] = [];
    if (this.peek() === CLOSE_BRACKET) {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.element(depth + 1, kind));
      const c = this.next();
      if (c === CLOSE_BRACKET) return out;
      if (c !== COMMA) throw GIVE_UP;
    }
  }

  /** A member name and its colon. */
  private memberName(): string {
    this.expect(QUOTE);
    this.scanString();
    const key = this.cachedString();
    this.expect(COLON);
    return key;
  }

  // ---- the tracing body's structure -----------------------------------------------------------------

  /** Member `key` of an object of `kind` (the body, a trace entry, a children map). */
  private member(depth: number, kind: Kind, key: string): unknown {
    const c = this.peek();
    if (kind === BODY) {
      if (key === 'spans' && c === OPEN_BRACKET) return this.array(depth, SPAN);
      if (key === 'traces' && c === OPEN_BRACE) return this.object(depth, TRACE_ENTRIES);
    } else if (kind === TRACE_ENTRIES) {
      if (c === OPEN_BRACE) return this.object(depth, TRACE_ENTRY);
    } else if (kind === TRACE_ENTRY) {
      if (key === 'spans' && c === OPEN_BRACE) return this.object(depth, CHILDREN);
    } else if (kind === CHILDREN) {
      // A child is a span or a list of spans.
      if (c === OPEN_BRACE) return this.span(depth);
      if (c === OPEN_BRACKET) return this.array(depth, SPAN);
    }
    return this.value(depth);
  }

  /** An element of an array of `kind`. */
  private element(depth: number, kind: Kind): unknown {
    if (this.peek() !== OPEN_BRACE) return this.value(depth);
    if (kind === SPAN) return this.span(depth);
    if (kind === EVENT) return this.event(depth);
    return this.object(depth, ANY);
  }

  /** A span object: the members the span checks read, as JSON.parse gives them; other members skipped. */
  private span(depth: number): SpanMembers {
    this.open(depth);
    const span = new SpanMembers();
    if (this.peek() === CLOSE_BRACE) {
      this.pos++;
      return span;
    }
    const inner = depth + 1;
    for (let k = 0; ; k++) {
      const id = this.memberId(SPAN_MEMBERS, this.#spanOrder, k);
      if (id < 0) this.skipValue(inner, this.#maxDepth);
      else {
        const c = this.peek();
        let value: unknown;
        if (c === QUOTE) value = this.templated(this.#spanValues, k);
        else if (c === OPEN_BRACE && id === SpanMembers.ATTRIBUTES) value = this.attributes(inner, this.#spanKeys, this.#spanAttributeKeys, this.#spanAttributeValues);
        else if (c === OPEN_BRACKET && id === SpanMembers.EVENTS) value = this.array(inner, EVENT);
        else if (c === OPEN_BRACE && id === SpanMembers.SPANS) value = this.object(inner, CHILDREN);
        else value = this.value(inner);
        span.set(id, value);
      }
      const c = this.next();
      if (c === CLOSE_BRACE) return span;
      if (c !== COMMA) throw GIVE_UP;
    }
  }

  /** An event object: its members the span checks read; other members skipped. */
  private event(depth: number): EventMembers {
    this.open(depth);
    const event = new EventMembers();
    if (this.peek() === CLOSE_BRACE) {
      this.pos++;
      return event;
    }
    const inner = depth + 1;
    for (let k = 0; ; k++) {
      const id = this.memberId(EVENT_MEMBERS, this.#eventOrder, k);
      if (id < 0) this.skipValue(inner, this.#maxDepth);
      else if (id === EventMembers.ATTRIBUTES && this.peek() === OPEN_BRACE) {
        event.set(id, this.attributes(inner, this.#eventKeys, this.#eventAttributeKeys, this.#eventAttributeValues));
      } else event.set(id, this.value(inner));
      const c = this.next();
      if (c === CLOSE_BRACE) return event;
      if (c !== COMMA) throw GIVE_UP;
    }
  }

  /**
   * An attribute object, flattened as flattenObject flattens what JSON.parse gives: members in text
   * order, a repeated key's last value at its first position. A member whose value is an object or an
   * array, or whose name is all digits, sends the whole object through flattenObject as a plain object
   * instead: those are rare, and the order rules are then JavaScript's own.
   */
  private attributes(depth: number, unique: UniqueKeys, keys: Template, values: Template): AttributeList {
    const start = this.pos;
    this.open(depth);
    const list = new AttributeList();
    if (this.peek() === CLOSE_BRACE) {
      this.pos++;
      return list;
    }
    for (let k = 0; ; k++) {
      if (this.peek() !== QUOTE) throw GIVE_UP;
      const key = this.templated(keys, k);
      this.expect(COLON);
      const c = this.peek();
      if (c === OPEN_BRACE || c === OPEN_BRACKET || isDigits(key)) {
        this.pos = start;
        return flattenObject(this.object(depth, ANY));
      }
      let value: AttrScalar;
      if (c === QUOTE) value = this.templated(values, k);
      else {
        value = this.scalar();
        // The infinities (a literal beyond a double's range) travel as their names, as flatten writes them.
        if (typeof value === 'number' && !Number.isFinite(value)) value = String(value);
      }
      list.append(key, value);
      const next = this.next();
      if (next === CLOSE_BRACE) break;
      if (next !== COMMA) throw GIVE_UP;
    }
    unique.settle(list);
    return list;
  }

  /**
   * The string that starts here (at its quote), as `template`'s k-th string when the bytes are the
   * same, else decoded (through the string cache); either way it becomes the template's k-th.
   */
  private templated(template: Template, k: number): string {
    const at = this.pos + 1;
    const length = k < template.length.length ? template.length[k] : -1;
    if (length >= 0 && at + length < this.end && this.buf[at + length] === QUOTE && this.sameBytes(at, template.at[k], length)) {
      this.pos = at + length + 1;
      template.at[k] = at;
      return template.text[k];
    }
    this.pos = at;
    this.scanString();
    const text = this.cachedString();
    template.at[k] = at;
    template.length[k] = this.strEscaped ? -1 : this.strEnd - at;
    template.text[k] = text;
    return text;
  }

  /**
   * The id of the member name that starts here (-1: a name `names` does not know), and its colon. The
   * name at position k of the last object of this kind (`order`) is tried first: a comparison, no string.
   */
  private memberId(names: MemberNames, order: number[], k: number): number {
    this.expect(QUOTE);
    const at = this.pos;
    const predicted = k < order.length ? order[k] : -1;
    if (predicted >= 0) {
      const bytes = names.bytes[predicted];
      if (at + bytes.length < this.end && this.buf[at + bytes.length] === QUOTE && this.sameAs(bytes, at)) {
        this.pos = at + bytes.length + 1;
        this.expect(COLON);
        return predicted;
      }
    }
    this.scanString();
    const id = this.strEscaped ? names.idOf(this.unescaped()) : this.knownName(names, at);
    this.expect(COLON);
    order[k] = id;
    return id;
  }

  /** The id of the plain name just scanned (starting at `at`), or -1. */
  private knownName(names: MemberNames, at: number): number {
    const candidates = names.byLength[this.strEnd - at];
    if (candidates === undefined) return -1;
    for (let i = 0; i < candidates.length; i++) {
      if (this.sameAs(names.bytes[candidates[i]], at)) return candidates[i];
    }
    return -1;
  }

  private sameAs(name: Uint8Array, at: number): boolean {
    const buf = this.buf;
    for (let i = 0; i < name.length; i++) if (buf[at + i] !== name[i]) return false;
    return true;
  }
}

/** How the members or elements of a container are read. */
type Kind = number;
const ANY = 0;
const BODY = 1;
const TRACE_ENTRIES = 2;
const TRACE_ENTRY = 3;
const CHILDREN = 4;
const SPAN = 5;
const EVENT = 6;
