// A single pass over raw JSON bytes, before any object is built: the nesting depth (so a 10,000-deep
// body is refused without touching the call stack), the number of objects and arrays (so a body of
// millions of `{}` is refused before JSON.parse builds them) and whether any number token may be too long for a
// double (so the exact, slower parse runs only when it can matter).
//
// The scan works on UTF-8 bytes: quotes, backslashes and brackets are ASCII and never occur inside a
// multi-byte sequence. It is one plain loop; measured at a fraction of JSON.parse's own time.
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, DIGIT_0, DIGIT_9, DOT, LOWER_E, MINUS, OPEN_BRACE, OPEN_BRACKET, PLUS, QUOTE, UPPER_E } from '../bytes/ascii.ts';

export interface JsonScan {
  /** Some object or array opens deeper than `maxDepth` (the top-level value is depth 1). */
  tooDeep: boolean;
  /**
   * A number token outside strings has 16 or more digits or an exponent: it may be an integer a double
   * cannot hold exactly, so the caller should parse with `exactNumbers` (parse.ts).
   */
  exactNumbers: boolean;
  /** Objects and arrays opened, as far as the scan went (JSON.parse would build this many). */
  containers: number;
}


/** 2^53 - 1 has 16 digits: any shorter integer literal is exact as a double. */
const EXACT_DIGITS = 16;

/**
 * A string still open this many bytes after its quote is finished by a native search for the next
 * quote (memchr), not by the loop. LLM inputs and outputs are kilobytes long: on spans of ~3.8 KB the
 * loop alone cost more than JSON.parse (6.4 vs 5.9 us/span), the native search 1.7. Keys, ids and
 * short values stay in the loop, where one native call costs more than it saves: a limit of 32 sent
 * the benchmark body's 36-44 byte keys and values to the native call and scanned it slower (1.7 vs
 * 1.3-1.4 us/span); 128 was no better than 64 on either body.
 */
const LONG_STRING = 64;

/**
 * Scans `bytes` (UTF-8 JSON text). Malformed text is scanned as far as it goes; judging it is
 * JSON.parse's job. Stops at the first bracket deeper than `maxDepth`.
 */
export function scanJson(bytes: Uint8Array, maxDepth: number): JsonScan {
  const n = bytes.length;
  let depth = 0;
  let exactNumbers = false;
  let containers = 0;
  let i = 0;
  while (i < n) {
    let c = bytes[i++];
    if (c === QUOTE) {
      // Skip the string: a tight loop, faster than one native indexOf call per (mostly short) string.
      // Two bytes per step while both are plain, which halves the loop's own overhead; one compare
      // (`i < stop`) bounds both the buffer and the length after which the native search takes over.
      const long = i + LONG_STRING;
      const stop = long < n - 1 ? long : n - 1;
      for (;;) {
        if (i < stop) {
          const a = bytes[i];
          const b = bytes[i + 1];
          if (a !== QUOTE && a !== BACKSLASH && b !== QUOTE && b !== BACKSLASH) {
            i += 2;
            continue;
          }
        } else if (i >= long) {
          i = afterLongString(bytes, i);
          if (i < 0) return { tooDeep: false, exactNumbers, containers }; // unterminated
          break;
        }
        if (i >= n) return { tooDeep: false, exactNumbers, containers }; // unterminated: JSON.parse reports it
        c = bytes[i++];
        if (c === QUOTE) break;
        if (c === BACKSLASH) i++; // the escaped byte cannot end the string
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      containers++;
      if (++depth > maxDepth) return { tooDeep: true, exactNumbers, containers };
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    } else if ((c >= DIGIT_0 && c <= DIGIT_9) || c === MINUS) {
      // The rest of one number token: digits, sign, dot, exponent.
      let digits = c === MINUS ? 0 : 1;
      let exponent = false;
      for (; i < n; i++) {
        const d = bytes[i];
        if (d >= DIGIT_0 && d <= DIGIT_9) digits++;
        else if (d === LOWER_E || d === UPPER_E) exponent = true;
        else if (d !== MINUS && d !== PLUS && d !== DOT) break;
      }
      if (exponent || digits >= EXACT_DIGITS) exactNumbers = true;
    }
  }
  return { tooDeep: false, exactNumbers, containers };
}

/**
 * The position after the quote that ends a string, searching natively from `from`, or -1 when the
 * string is unterminated. `from` is a boundary between the string's characters (never inside an
 * escape), so the backslashes that decide a found quote are the run right before it counted back to
 * `from` at most: an odd run escapes the quote.
 */
function afterLongString(bytes: Uint8Array, from: number): number {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let i = from;
  for (;;) {
    const quote = buf.indexOf(QUOTE, i);
    if (quote < 0) return -1;
    let k = quote - 1;
    while (k >= i && bytes[k] === BACKSLASH) k--;
    if (((quote - 1 - k) & 1) === 0) return quote + 1;
    i = quote + 1;
  }
}
