// The spans of an OTLP/JSON body counted on its bytes, before JSON.parse builds anything: a body of a
// million empty spans (`{},{},...`, 3 MB) would otherwise become a million objects only to be refused
// (413) afterwards. The decoder still reads the body with JSON.parse (decode-json.ts); this only walks
// `resourceSpans[*].scopeSpans[*].spans` and counts that array's elements, skipping every other value
// with the byte reader's syntax check.
//
// The count is an upper bound of what the decoder builds: a member given twice (duplicate keys, or both
// `scopeSpans` and `scope_spans`) is counted twice, where JSON.parse keeps one. Only a hand-made body
// does that. On text that is not JSON, or nests deeper than the limit, the walk stops without a verdict
// and JSON.parse's own checks answer.
import { StringCache } from '../bytes/string-cache.ts';
import { GIVE_UP, JsonByteReader } from '../json/byte-reader.ts';
import { OPEN_BRACE, OPEN_BRACKET, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, QUOTE } from '../bytes/ascii.ts';
import { OtlpSpanLimitError } from './errors.ts';

/** The member names on the way to the spans (lowerCamelCase and proto names, as decode-json.ts reads). */
const Member = { Other: 0, ResourceSpans: 1, ScopeSpans: 2, Spans: 3 } as const;
type Member = (typeof Member)[keyof typeof Member];

const NAMES: ReadonlyArray<readonly [string, Member]> = [
  ['resourceSpans', Member.ResourceSpans], ['resource_spans', Member.ResourceSpans],
  ['scopeSpans', Member.ScopeSpans], ['scope_spans', Member.ScopeSpans], ['spans', Member.Spans],
];
const NAME_BYTES = NAMES.map(([name, member]) => [Buffer.from(name, 'latin1'), member] as const);

class SpanCounter extends JsonByteReader {
  readonly #maxSpans: number;
  readonly #maxDepth: number;
  #spans = 0;

  constructor(bytes: Uint8Array, maxSpans: number, maxDepth: number) {
    // The cache is never consulted: the walk compares member names as bytes and builds no string.
    super(bytes, new StringCache());
    this.#maxSpans = maxSpans;
    this.#maxDepth = maxDepth;
  }

  count(): void {
    this.#members(1, (m) => m === Member.ResourceSpans && this.#elements(2, () => this.#members(3, (m) =>
      m === Member.ScopeSpans && this.#elements(4, () => this.#members(5, (m) =>
        m === Member.Spans && this.#elements(6, () => this.#span()))))));
  }

  #span(): void {
    if (++this.#spans > this.#maxSpans) throw new OtlpSpanLimitError(this.#maxSpans);
    this.skipValue(7, this.#maxDepth);
  }

  /** An object at `depth`: `read(member)` reads the value of the members it wants and answers true;
   *  the others are skipped. Any other value is skipped. */
  #members(depth: number, read: (member: Member) => boolean): void {
    if (this.peek() !== OPEN_BRACE) {
      this.skipValue(depth, this.#maxDepth);
      return;
    }
    this.pos++;
    if (this.peek() === CLOSE_BRACE) {
      this.pos++;
      return;
    }
    for (;;) {
      this.expect(QUOTE);
      this.scanString();
      const member = this.#member();
      this.expect(COLON);
      if (!read(member)) this.skipValue(depth + 1, this.#maxDepth);
      const next = this.next();
      if (next === CLOSE_BRACE) return;
      if (next !== COMMA) throw GIVE_UP;
    }
  }

  /** An array at `depth`: `read()` reads each element. Any other value is skipped. Always true. */
  #elements(depth: number, read: () => void): true {
    if (this.peek() !== OPEN_BRACKET) {
      this.skipValue(depth, this.#maxDepth);
      return true;
    }
    this.pos++;
    if (this.peek() === CLOSE_BRACKET) {
      this.pos++;
      return true;
    }
    for (;;) {
      read();
      const next = this.next();
      if (next === CLOSE_BRACKET) return true;
      if (next !== COMMA) throw GIVE_UP;
    }
  }

  /** Which name the member just scanned has; escaped names are decoded first (`"sp\u0061ns"`). */
  #member(): Member {
    if (this.strEscaped) {
      const name = this.unescaped();
      return NAMES.find(([n]) => n === name)?.[1] ?? Member.Other;
    }
    const length = this.strEnd - this.strStart;
    for (const [bytes, member] of NAME_BYTES) {
      if (bytes.length === length && this.buf.compare(bytes, 0, length, this.strStart, this.strEnd) === 0) return member;
    }
    return Member.Other;
  }
}

/**
 * Throws OtlpSpanLimitError when the body holds more than `maxSpans` spans, stopping at the first one
 * over. Returns without a verdict on text that is not JSON or nests deeper than `maxDepth`.
 */
export function countJsonSpans(bytes: Uint8Array, maxSpans: number, maxDepth: number): void {
  try {
    new SpanCounter(bytes, maxSpans, maxDepth).count();
  } catch (e) {
    if (e !== GIVE_UP) throw e;
  }
}

/**
 * Whether a body of `length` bytes can hold more than `maxSpans` spans: each array element takes at
 * least one byte plus a comma or bracket, so n spans need 2n bytes or more.
 */
export function mayExceedSpans(length: number, maxSpans: number): boolean {
  return length >= 2 * (maxSpans + 1);
}
