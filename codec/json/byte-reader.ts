// JSON read straight from UTF-8 bytes, token by token, for a decoder that builds its own values without
// JSON.parse building an object graph first (codec/tracing/body-reader.ts).
//
// Tokens come out as JSON.parse (with the exact reviver of parse.ts) gives them. On text JSON.parse
// refuses (a syntax error, a control character in a string, a bad escape) the reader throws GIVE_UP,
// which the decoder catches: it then asks parse.ts for the answer and its message. Escapes are decoded
// by JSON.parse itself. The bytes must have been checked as UTF-8 by the caller (one native pass over
// the whole body).
import type { AttrScalar } from '../../model/span.ts';
import type { SliceableBuffer, StringCache } from '../bytes/string-cache.ts';
import { exactInteger } from './parse.ts';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, DIGIT_0, DOT, MINUS, OPEN_BRACE, OPEN_BRACKET, QUOTE } from '../bytes/ascii.ts';

/** What a reader throws when the text is not JSON (see the file comment). */
export const GIVE_UP: unique symbol = Symbol('not JSON');

export function giveUp(): never {
  throw GIVE_UP;
}


function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

export class JsonByteReader {
  protected readonly buf: SliceableBuffer;
  protected readonly view: DataView;
  protected readonly end: number;
  protected pos = 0;
  /** The last string's [start, end) (its content, without quotes) and whether it held escapes. */
  protected strStart = 0;
  protected strEnd = 0;
  protected strEscaped = false;
  /** Where short strings come from (their owner's, kept across requests). */
  private readonly strings: StringCache;

  constructor(bytes: Uint8Array, strings: StringCache) {
    this.strings = strings;
    this.buf = (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) as SliceableBuffer;
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    this.end = this.buf.length;
  }

  /** A string, number, boolean or null. */
  protected scalar(): AttrScalar {
    const c = this.peek();
    if (c === QUOTE) return this.string();
    if (c === MINUS || (c - DIGIT_0) >>> 0 <= 9) return this.number();
    if (c === 0x74 /* t */) return this.literal('true', true);
    if (c === 0x66 /* f */) return this.literal('false', false);
    if (c === 0x6e /* n */) return this.literal('null', null);
    return giveUp();
  }

  protected literal<T>(text: string, value: T): T {
    const end = this.pos + text.length;
    if (end > this.end) giveUp();
    for (let i = 0; i < text.length; i++) if (this.buf[this.pos + i] !== text.charCodeAt(i)) giveUp();
    this.pos = end;
    return value;
  }

  /**
   * A JSON number as JSON.parse gives it, except that an integer a double cannot hold exactly is the
   * exact `bigint` (what parse.ts's reviver gives).
   */
  protected number(): number | bigint {
    const buf = this.buf;
    const start = this.pos;
    const end = this.end;
    let i = start;
    if (buf[i] === MINUS) i++;
    if (i >= end) giveUp();
    let digits = 0;
    let value = 0;
    if (buf[i] === DIGIT_0) {
      i++;
      digits = 1;
    } else {
      let d: number;
      while (i < end && (d = buf[i] - DIGIT_0) >>> 0 <= 9) {
        value = value * 10 + d;
        digits++;
        i++;
      }
      if (digits === 0) giveUp();
    }
    let plain = true;
    if (i < end && buf[i] === DOT) {
      plain = false;
      const from = ++i;
      while (i < end && (buf[i] - DIGIT_0) >>> 0 <= 9) i++;
      if (i === from) giveUp();
    }
    if (i < end && (buf[i] | 0x20) === 0x65 /* e or E */) {
      plain = false;
      i++;
      if (i < end && (buf[i] === 0x2b || buf[i] === MINUS)) i++;
      const from = i;
      while (i < end && (buf[i] - DIGIT_0) >>> 0 <= 9) i++;
      if (i === from) giveUp();
    }
    this.pos = i;
    // Up to 15 digits, an integer is exact as accumulated; a minus sign goes through Number for -0.
    if (plain && digits <= 15 && buf[start] !== MINUS) return value;
    const text = buf.latin1Slice(start, i);
    const n = Number(text);
    return Number.isInteger(n) && !Number.isSafeInteger(n) ? (exactInteger(text) ?? n) : n;
  }

  /** A string value (after whitespace). */
  protected string(): string {
    this.expect(QUOTE);
    this.scanString();
    return this.cachedString();
  }

  /** The string just scanned, through the cache. */
  protected cachedString(): string {
    return this.strEscaped ? this.unescaped() : this.strings.utf8(this.buf, this.view, this.strStart, this.strEnd);
  }

  /** Escapes are rare: JSON.parse of the quoted text decodes them exactly (and refuses bad ones). */
  protected unescaped(): string {
    try {
      return JSON.parse(this.buf.utf8Slice(this.strStart - 1, this.strEnd + 1)) as string;
    } catch {
      return giveUp();
    }
  }

  /**
   * Finds the end of the string whose opening quote was just consumed: sets strStart, strEnd (the
   * closing quote's position) and strEscaped, and moves past the closing quote. Control characters are
   * invalid JSON: give up. (The bytes are valid UTF-8: checked once for the whole body.)
   */
  protected scanString(): void {
    const buf = this.buf;
    const view = this.view;
    const end = this.end;
    const start = this.pos;
    let escaped = false;
    let i = start;
    for (;;) {
      // Four bytes per step while none of them is a quote, a backslash or a control character (the
      // usual zero-byte test on the word xor-ed with each; the borrow can only mark bytes above a real
      // hit, which the byte steps below then find first).
      while (i + 4 <= end) {
        const w = view.getUint32(i, true);
        const q = w ^ 0x22222222;
        const b = w ^ 0x5c5c5c5c;
        if ((((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b) | ((w - 0x20202020) & ~w)) & 0x80808080) break;
        i += 4;
      }
      if (i >= end) giveUp();
      const c = buf[i];
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        // The backslash and the character it escapes (`\"` must not end the string); `\u` takes its
        // four hex digits along as plain characters. JSON.parse checks the escape itself later.
        escaped = true;
        i += 2;
      } else {
        if (c < 0x20) giveUp();
        i++;
      }
    }
    this.strStart = start;
    this.strEnd = i;
    this.strEscaped = escaped;
    this.pos = i + 1;
  }

  /** True when body[a, a + length) and body[b, b + length) hold the same bytes: a word at a time, the
   *  last word overlapping the one before when the length is not a multiple of four. */
  protected sameBytes(a: number, b: number, length: number): boolean {
    const view = this.view;
    if (length < 4) {
      const buf = this.buf;
      for (let i = 0; i < length; i++) if (buf[a + i] !== buf[b + i]) return false;
      return true;
    }
    const last = length - 4;
    let i = 0;
    while (i < last && view.getInt32(a + i, true) === view.getInt32(b + i, true)) i += 4;
    return i >= last && view.getInt32(a + last, true) === view.getInt32(b + last, true);
  }

  /** Moves past the value that starts here, checking its syntax as JSON.parse would and that no
   *  container in it opens deeper than `maxDepth` (one opening here is at `depth`). */
  protected skipValue(depth: number, maxDepth: number): void {
    const c = this.peek();
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth > maxDepth) giveUp();
      this.pos++;
      const close = c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
      if (this.peek() === close) {
        this.pos++;
        return;
      }
      for (;;) {
        if (c === OPEN_BRACE) {
          this.expect(QUOTE);
          this.scanString();
          if (this.strEscaped) this.unescaped();
          this.expect(COLON);
        }
        this.skipValue(depth + 1, maxDepth);
        const next = this.next();
        if (next === close) return;
        if (next !== COMMA) giveUp();
      }
    }
    if (c === QUOTE) {
      this.pos++;
      this.scanString();
      if (this.strEscaped) this.unescaped();
      return;
    }
    this.scalar();
  }

  // ---- structure ------------------------------------------------------------------------------------

  /** The next byte after whitespace, not consumed; -1 at the end. */
  protected peek(): number {
    const buf = this.buf;
    let i = this.pos;
    // Compact JSON has no whitespace: one test, then the loop only when there is some.
    if (i < this.end && buf[i] > 0x20) return buf[i];
    while (i < this.end && isWhitespace(buf[i])) i++;
    this.pos = i;
    return i < this.end ? buf[i] : -1;
  }

  /** The next byte after whitespace, consumed. */
  protected next(): number {
    const c = this.peek();
    this.pos++;
    return c;
  }

  protected expect(c: number): void {
    // Compact JSON: the byte is usually right there.
    const i = this.pos;
    if (i < this.end && this.buf[i] === c) this.pos = i + 1;
    else if (this.next() !== c) giveUp();
  }
}
