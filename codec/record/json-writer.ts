// JSON text written straight into a growing UTF-8 Buffer, for the span record (span-record.md "JSON
// encoding"). Written by hand because JSON.stringify cannot write bigint and the record must carry
// integers beyond +-(2^53-1) with every digit.
//
// Why bytes and not a string: building the record with `+=` made a rope of small strings per span that
// was then flattened and UTF-8 encoded into the file buffer: about 8 KB of short-lived garbage per span
// and a sixth of the encoder's time in the escape-check regular expression (measured, docs/decisions/
// 0260). Here each short printable-ASCII string is checked and copied in one char-code loop. Any other
// string is UTF-8 encoded natively into the buffer and escaped there, in place (`escaped`): LLM inputs
// and outputs, hundreds to thousands of characters full of newlines and quotes, are most of the bytes
// of an LLM span, and JSON.stringify plus a second native write measured ~3x the time of this.
import { AttributeList } from '../../model/attributes/list.ts';
import type { Utf8WriteBuffer } from '../bytes/output-buffer.ts';
import type { NativeSlices } from '../bytes/string-cache.ts';
import { KeyMemory, Piece, PiecePositions } from '../bytes/piece.ts';
import type { AttrValue, Attributes } from '../../model/span.ts';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, DIGIT_0, LETTER_U, OPEN_BRACE, OPEN_BRACKET, QUOTE } from '../bytes/ascii.ts';


/** By how many bytes JSON's escape of each byte value grows the text: `\n` 1, `\u001f` 5, none 0. */
const ESCAPE_GROWTH = new Uint8Array(256);
/** The letter after the backslash of the two-byte escapes. */
const SHORT_ESCAPE = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) ESCAPE_GROWTH[c] = 5;
for (const [c, letter] of [[0x08, 'b'], [0x09, 't'], [0x0a, 'n'], [0x0c, 'f'], [0x0d, 'r'], [QUOTE, '"'], [BACKSLASH, '\\']] as const) {
  ESCAPE_GROWTH[c] = 1;
  SHORT_ESCAPE[c] = letter.charCodeAt(0);
}
/** Lowercase hex digits, as JSON.stringify writes `\u00XX`. */
const HEX_DIGIT = new Uint8Array([...'0123456789abcdef'].map((d) => d.charCodeAt(0)));


/** Strings longer than this skip the char loop: the native UTF-8 write and the byte scan win there. */
const LONG_STRING = 64;
/** Long strings remembered per writer (see JsonWriter.longTexts). */
const LONG_TEXTS = 16;
/**
 * Copies of earlier text from this many bytes on use the native `copyWithin` (see `copyBack`). Measured:
 * the 8-byte word loop ~25-40 ns against ~30-50 up to 128 bytes, even at 256, ~105 against ~55 at 512.
 */
const NATIVE_COPY = 256;
/** Slots of `sameString` (the record fields that use it, encode-json.ts). */
const SAME_SLOTS = 8;

export class JsonWriter {
  buf: Utf8WriteBuffer;
  /** `buf` as a DataView, for word stores (`copy`, `copyBack`, `string`); replaced whenever `buf` is. */
  private view: DataView;
  pos = 0;
  /**
   * The last pair of values written through `repeat()` and where their text is in this buffer. Spans of
   * one OTLP request share their resource map and scope object, so their text is copied from the span
   * before instead of being written again.
   */
  private repeatA: object | undefined;
  private repeatB: object | undefined;
  private repeatStart = -1;
  private repeatEnd = -1;
  /**
   * The last long strings written and where their text is in this buffer (a ring). A span whose
   * semantic conventions were mapped holds each message text twice (`gen_ai.prompt.0.content` and
   * `ag.data.inputs.prompt.0.content`, one string): the second is copied from the first.
   */
  private readonly longTexts: string[] = new Array<string>(LONG_TEXTS).fill('');
  private readonly longStarts = new Int32Array(LONG_TEXTS);
  private readonly longEnds = new Int32Array(LONG_TEXTS);
  private longNext = 0;
  /**
   * Per `sameString` slot, the text written last and where its literal is in this buffer (start -1:
   * none since the last reset).
   */
  private readonly sameTexts: string[] = new Array<string>(SAME_SLOTS).fill('');
  private readonly sameStarts = new Int32Array(SAME_SLOTS).fill(-1);
  private readonly sameEnds = new Int32Array(SAME_SLOTS);
  /** Where `inner` lists the byte positions of a text's escapes (grown as needed). */
  private escapes = new Int32Array(1024);

  readonly keys: KeyMemory;

  /**
   * Writes into `into` when given (its old contents are overwritten), else into a new buffer; `keys`
   * carries what the writers of one encoder remember of attribute keys.
   */
  constructor(capacity: number, into?: Buffer, keys = new KeyMemory()) {
    this.keys = keys;
    this.buf = (into ?? Buffer.allocUnsafe(Math.max(64, capacity))) as Utf8WriteBuffer;
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  }

  /** Empties the writer for reuse. */
  reset(): void {
    this.pos = 0;
    this.repeatStart = -1;
    this.longTexts.fill('');
    this.sameStarts.fill(-1);
  }

  /**
   * Writes the pair `a`, `b` with `write`, or, when it is the very pair of objects written last through
   * here, copies that text. Only for values that do not change while the writer is in use (one
   * synchronous encoding); `undefined` members compare like any other.
   */
  repeat<A extends object, B extends object>(
    a: A | undefined, b: B | undefined, write: (w: JsonWriter, a: A | undefined, b: B | undefined) => void,
  ): void {
    if (this.repeatStart >= 0 && a === this.repeatA && b === this.repeatB) {
      this.copyBack(this.repeatStart, this.repeatEnd - this.repeatStart);
      return;
    }
    const start = this.pos;
    write(this, a, b);
    this.repeatA = a;
    this.repeatB = b;
    this.repeatStart = start;
    this.repeatEnd = this.pos;
  }

  /**
   * Appends a copy of the `n` bytes written at `from` (which end at or before the current position): the
   * one way text written earlier in this buffer is written again (`repeat`, `sameString`, `longString`).
   *
   * Below NATIVE_COPY bytes, 8 bytes at a time as `copy` stores pieces: up to 7 bytes past them are
   * copied too, and overwritten by what follows. Every byte of the source is read before anything at or
   * after the current position is written, so the two may lie close; the words read past the source's
   * end stay inside the buffer (from + n + 7 <= pos + n + 7, which is reserved). From NATIVE_COPY bytes
   * on, the native `copyWithin` (a memmove) is cheaper (docs/performance.md, round 0500).
   */
  private copyBack(from: number, n: number): void {
    if (n >= NATIVE_COPY) {
      this.reserve(n);
      this.buf.copyWithin(this.pos, from, from + n);
      this.pos += n;
      return;
    }
    if (this.pos + n + 7 > this.buf.length) this.grow(n + 7);
    const view = this.view;
    const to = this.pos;
    for (let i = 0; i < n; i += 8) view.setBigUint64(to + i, view.getBigUint64(from + i, true), true);
    this.pos = to + n;
  }

  /** Room for `n` more bytes. */
  reserve(n: number): void {
    if (this.pos + n > this.buf.length) this.grow(n);
  }

  private grow(n: number): void {
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n)) as Utf8WriteBuffer;
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
    this.view = new DataView(grown.buffer, grown.byteOffset, grown.length);
  }

  /** The bytes written so far (a view, not a copy). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  byte(b: number): void {
    if (this.pos >= this.buf.length) this.grow(1);
    this.buf[this.pos++] = b;
  }

  /** Text known to be ASCII and to need no escaping (keys and punctuation of the record format). */
  raw(text: string): void {
    const n = text.length;
    if (this.pos + n > this.buf.length) this.grow(n);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) buf[p++] = text.charCodeAt(i);
    this.pos = p;
  }

  /** A pre-encoded piece (see `Piece`). */
  copy(piece: Piece): void {
    const words = piece.words;
    const n = words.length;
    // Room for the padding of the last word too.
    if (this.pos + n * 8 > this.buf.length) this.grow(n * 8);
    const view = this.view;
    const p = this.pos;
    for (let i = 0; i < n; i++) view.setBigUint64(p + i * 8, words[i], true);
    this.pos = p + piece.length;
  }

  /**
   * `,"key":` for the key of member `i` of an attribute map (the comma before every member, see
   * `attributes()`), from a bounded cache of the encoded forms (keys repeat in every span).
   */
  memberKey(key: string, i: number, seen: PiecePositions): void {
    const encoded = this.keys.pieces.getAt(key, i, seen);
    if (encoded === undefined) {
      const start = this.pos;
      this.byte(COMMA);
      this.string(key);
      this.byte(COLON);
      this.keys.pieces.remember(key, this.buf.subarray(start, this.pos));
      return;
    }
    this.copy(encoded);
  }

  /**
   * `string(text)` for a field whose value mostly repeats from one span to the next (a trace id, a parent
   * id, a span name): when `text` is the very string written last through `slot`, its literal is copied
   * from there a word at a time. Reading a string's characters one by one is what costs in `string()`
   * (~2 ns each: 70 ns for a trace id against ~20 ns to copy its 34 bytes, docs/performance.md, round 0500); the
   * comparison is mostly of one reference with itself.
   */
  sameString(slot: number, text: string): void {
    const from = this.sameStarts[slot];
    if (from >= 0 && text === this.sameTexts[slot]) {
      this.copyBack(from, this.sameEnds[slot] - from);
      return;
    }
    const start = this.pos;
    this.string(text);
    this.sameTexts[slot] = text;
    this.sameStarts[slot] = start;
    this.sameEnds[slot] = this.pos;
  }

  /** Any text as a JSON string literal, the same as JSON.stringify(text). */
  string(text: string): void {
    const n = text.length;
    if (n > LONG_STRING) {
      this.longString(text);
      return;
    }
    if (this.pos + n + 2 > this.buf.length) this.grow(n + 2);
    const buf = this.buf;
    const view = this.view;
    let p = this.pos;
    buf[p++] = QUOTE;
    let i = 0;
    // Four characters per step: if all are ASCII, they are packed into one little-endian word that is
    // tested for a control character, `"` or `\` in each byte at once (the classic "has a byte less
    // than / equal to" bit tricks; exact as a yes/no answer when every byte is below 0x80) and stored
    // in one write. Measured ~15-20% cheaper than testing and storing character by character.
    for (; i + 4 <= n; i += 4) {
      const c0 = text.charCodeAt(i);
      const c1 = text.charCodeAt(i + 1);
      const c2 = text.charCodeAt(i + 2);
      const c3 = text.charCodeAt(i + 3);
      if ((c0 | c1 | c2 | c3) > 0x7f) break;
      const word = c0 | (c1 << 8) | (c2 << 16) | (c3 << 24);
      const quote = word ^ 0x22222222;
      const backslash = word ^ 0x5c5c5c5c;
      const control = (word - 0x20202020) & ~word;
      if ((control | ((quote - 0x01010101) & ~quote) | ((backslash - 0x01010101) & ~backslash)) & 0x80808080) break;
      view.setUint32(p, word, true);
      p += 4;
    }
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      // ASCII other than control characters, `"` and `\` is copied as is; anything else (including
      // what stopped the loop above) takes the slow path. DEL (0x7f) needs no escape in JSON.
      if (c < 0x20 || c > 0x7f || c === QUOTE || c === 0x5c) break;
      buf[p++] = c;
    }
    if (i === n) {
      buf[p++] = QUOTE;
      this.pos = p;
      return;
    }
    // Written again from the quote.
    this.escaped(text);
  }

  /** A long string (LLM inputs and outputs): copied when the same text was written lately, else written. */
  private longString(text: string): void {
    const texts = this.longTexts;
    for (let r = 0; r < LONG_TEXTS; r++) {
      // Lengths first: most pairs differ there, and an equal length costs a comparison of the texts.
      if (texts[r].length === text.length && texts[r] === text) {
        this.copyBack(this.longStarts[r], this.longEnds[r] - this.longStarts[r]);
        return;
      }
    }
    const at = this.pos;
    this.escaped(text);
    const r = this.longNext;
    texts[r] = text;
    this.longStarts[r] = at;
    this.longEnds[r] = this.pos;
    this.longNext = (r + 1) % LONG_TEXTS;
  }

  /**
   * Any text as a JSON string literal, as JSON.stringify writes it (see `inner`). A lone surrogate (which
   * the UTF-8 encoding would turn into U+FFFD) is written as its `\udXXX` escape, by `illFormed`.
   */
  private escaped(text: string): void {
    this.byte(QUOTE);
    if (text.isWellFormed()) this.inner(text);
    else this.illFormed(text);
    this.byte(QUOTE);
  }

  /**
   * `escaped` of a well-formed text without the quotes, in bulk: the text is UTF-8 encoded natively
   * straight to its place in the output, the bytes to escape are found, and the runs between them are
   * moved right, from the last run back, to open each escape's room (`expand`).
   *
   * Finding them: `"` and `\` by the native `indexOf` over a one-byte string whose characters are the
   * bytes (the text itself when it is ASCII, else a latin1 view of its bytes), and control characters by
   * a word loop over the bytes that only tests for "a byte below 0x20" (in text, mostly newlines). The
   * word loop is what is left of the JS work per byte; the escape loop it replaced tested each word for
   * three kinds of byte and copied it: -31% per byte of the bench's texts (docs/performance.md, issue 26).
   */
  private inner(text: string): void {
    // utf8Write would silently cut what does not fit. UTF-8 needs at most 3 bytes per UTF-16 unit; when
    // that much room is not there, the exact length (a native count) is reserved, not three times it.
    if (this.pos + text.length * 3 > this.buf.length) this.reserve(Buffer.byteLength(text, 'utf8'));
    const start = this.pos;
    const end = start + this.buf.utf8Write(text, start);
    this.pos = end;
    const n = end - start;
    if (this.escapes.length < n) this.escapes = new Int32Array(Math.max(n, this.escapes.length * 2));
    const escapes = this.escapes;
    const buf = this.buf;
    const view = this.view;
    // Control characters, in order, at escapes[0, controls).
    let k = 0;
    let i = start;
    for (; i + 8 <= end; i += 8) {
      const w = view.getInt32(i, true);
      const x = view.getInt32(i + 4, true);
      // "Some byte is below 0x20", exact as a yes/no answer for any bytes (`| 0`: int32 arithmetic).
      if (((((w - 0x20202020) | 0) & ~w) | (((x - 0x20202020) | 0) & ~x)) & 0x80808080) {
        for (let j = i; j < i + 8; j++) if (buf[j] < 0x20) escapes[k++] = j;
      }
    }
    for (; i < end; i++) if (buf[i] < 0x20) escapes[k++] = i;
    const controls = k;
    // Quotes, then backslashes, each in order, after them: byte offsets from the text's start.
    const bytes = n === text.length ? text : (buf as unknown as NativeSlices).latin1Slice(start, end);
    for (let q = bytes.indexOf('"'); q >= 0; q = bytes.indexOf('"', q + 1)) escapes[k++] = start + q;
    const quotes = k;
    for (let q = bytes.indexOf('\\'); q >= 0; q = bytes.indexOf('\\', q + 1)) escapes[k++] = start + q;
    if (k === 0) return;
    let growth = 0;
    for (let e = 0; e < k; e++) growth += ESCAPE_GROWTH[buf[escapes[e]]];
    this.reserve(growth);
    this.expand(end, growth, controls, quotes, k);
  }

  /**
   * Opens the room of each escape found by `inner` and writes it, from the last back: the three ascending
   * lists escapes[0, controls), [controls, quotes), [quotes, count) are walked from their ends at once.
   * `growth` is what the escapes add; the text's raw bytes end at `end`, which is `pos`.
   */
  private expand(end: number, growth: number, controls: number, quotes: number, count: number): void {
    const buf = this.buf;
    const escapes = this.escapes;
    this.pos = end + growth;
    let c = controls - 1;
    let q = quotes - 1;
    let b = count - 1;
    let runEnd = end;
    while (growth > 0) {
      // The last escape not yet written: the largest of the three lists' last ones.
      let at = c >= 0 ? escapes[c] : -1;
      let from = 0;
      if (q >= controls && escapes[q] > at) { at = escapes[q]; from = 1; }
      if (b >= quotes && escapes[b] > at) { at = escapes[b]; from = 2; }
      if (from === 0) c--;
      else if (from === 1) q--;
      else b--;
      const byte = buf[at];
      const grows = ESCAPE_GROWTH[byte];
      this.moveRight(at + 1, runEnd, growth);
      runEnd = at;
      growth -= grows;
      let o = at + growth;
      buf[o++] = BACKSLASH;
      if (grows === 1) buf[o] = SHORT_ESCAPE[byte];
      else {
        buf[o++] = LETTER_U;
        buf[o++] = DIGIT_0;
        buf[o++] = DIGIT_0;
        buf[o++] = HEX_DIGIT[byte >> 4];
        buf[o] = HEX_DIGIT[byte & 15];
      }
    }
  }

  /**
   * Moves the bytes [from, to) `by` bytes to the right (the ranges may overlap). Below NATIVE_COPY bytes
   * eight at a time from the end, as `copyBack` copies: each word is read before the writes reach it. A
   * native `copyWithin` call costs more than a run between two newlines takes this way.
   */
  private moveRight(from: number, to: number, by: number): void {
    const n = to - from;
    if (n >= NATIVE_COPY) {
      this.buf.copyWithin(from + by, from, to);
      return;
    }
    const view = this.view;
    let i = n - 8;
    for (; i >= 0; i -= 8) view.setBigUint64(from + by + i, view.getBigUint64(from + i, true), true);
    const buf = this.buf;
    for (let j = i + 7; j >= 0; j--) buf[from + by + j] = buf[from + j];
  }

  /** `inner` of a text with lone surrogates: each well-formed run as usual, each lone surrogate as `\udXXX`. */
  private illFormed(text: string): void {
    let run = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0xd800 || c > 0xdfff) continue;
      if (c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        i++; // a pair
        continue;
      }
      this.inner(text.slice(run, i));
      this.raw('\\u' + c.toString(16));
      run = i + 1;
    }
    this.inner(text.slice(run));
  }

  /** A number as JavaScript prints it (`'' + n`), without building the text for small integers. */
  integerOrText(value: number): void {
    if (value >= 0 && value <= 0x7fffffff && (value | 0) === value) this.smallInt(value);
    else this.raw('' + value);
  }

  private smallInt(value: number): void {
    // Integer arithmetic (`| 0`): `Math.floor(v / 10)` is a double division per digit.
    let digits = 1;
    for (let v = value; v >= 10; v = (v / 10) | 0) digits++;
    this.reserve(digits);
    const buf = this.buf;
    let p = this.pos + digits;
    this.pos = p;
    let v = value;
    do {
      const rest = (v / 10) | 0;
      buf[--p] = DIGIT_0 + v - rest * 10;
      v = rest;
    } while (v > 0);
  }

  /** An attribute number: non-finite doubles arrive as the strings `NaN`/`Infinity` (ag-namespace.md
   *  §1.1); should one still be a number, it is written the same way rather than as JSON's lossy null. */
  number(value: number): void {
    if (Number.isFinite(value)) this.integerOrText(value);
    else this.raw(Number.isNaN(value) ? '"NaN"' : value > 0 ? '"Infinity"' : '"-Infinity"');
  }

  /** One flat attribute value: a scalar or an array of scalars. */
  attrValue(value: AttrValue): void {
    // `typeof` compared with constants, not `switch (typeof value)`: optimised code turns each
    // comparison into a type check, where the switch called the Typeof builtin for every value.
    if (typeof value === 'string') this.string(value);
    else if (typeof value === 'number') this.number(value);
    else if (typeof value === 'boolean') this.raw(value ? 'true' : 'false');
    else if (typeof value === 'bigint') this.raw(value.toString());
    else if (value === null) this.raw('null');
    else this.scalarArray(value);
  }

  private scalarArray(values: readonly AttrValue[]): void {
    this.byte(OPEN_BRACKET);
    for (let i = 0; i < values.length; i++) {
      if (i > 0) this.byte(COMMA);
      this.attrValue(values[i]);
    }
    this.byte(CLOSE_BRACKET);
  }

  /**
   * A flat attribute map as one JSON object, in map order. `seen` holds the keys of this kind of map
   * (a span's, an event's) by position, as written last time (PiecePositions).
   */
  attributes(attributes: Attributes, seen: PiecePositions = this.keys.otherKeys): void {
    if (attributes.size === 0) {
      this.byte(OPEN_BRACE);
      this.byte(CLOSE_BRACE);
      return;
    }
    // Every member is written as `,"key":value` (comma and key are one cached piece), and the comma of
    // the first becomes the opening brace: no first-member test and no separate comma per member.
    const start = this.pos;
    const keys = attributes.keyArray;
    const values = attributes.valueArray;
    for (let i = 0; i < keys.length; i++) {
      this.memberKey(keys[i], i, seen);
      this.attrValue(values[i]);
    }
    this.buf[start] = OPEN_BRACE;
    this.byte(CLOSE_BRACE);
  }

  /**
   * Any plain JSON-like value (the nested attribute shape): objects, arrays, attribute lists and the
   * scalars above.
   * `undefined` members are left out as JSON.stringify does; nothing else is expected.
   */
  plainValue(value: unknown): void {
    if (typeof value !== 'object' || value === null) {
      const t = typeof value;
      // Scalars are written as attribute values; anything else JSON.stringify would also write as null.
      const scalar = value === null || t === 'string' || t === 'number' || t === 'boolean' || t === 'bigint';
      if (scalar) this.attrValue(value as AttrValue);
      else this.raw('null');
      return;
    }
    if (Array.isArray(value)) {
      this.byte(OPEN_BRACKET);
      for (let i = 0; i < value.length; i++) {
        if (i > 0) this.byte(COMMA);
        const item: unknown = value[i];
        if (item === undefined) this.raw('null');
        else this.plainValue(item);
      }
      this.byte(CLOSE_BRACKET);
      return;
    }
    if (value instanceof AttributeList) {
      this.attributes(value);
      return;
    }
    const keys = Object.keys(value);
    this.byte(OPEN_BRACE);
    let firstMember = true;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const member = (value as Record<string, unknown>)[key];
      if (member === undefined) continue;
      if (firstMember) firstMember = false;
      else this.byte(COMMA);
      this.string(key);
      this.byte(COLON);
      this.plainValue(member);
    }
    this.byte(CLOSE_BRACE);
  }
}
