// Trace and span ids arrive as bytes and leave as lowercase hex (span-record.md). Every span carries two
// or three of them, so their conversion is on the hot path of OTLP decoding.
//
// Why not Buffer's `hexSlice`: it is a call into C++ (about 80-100 ns per id on the benchmark machine,
// ~7-10% of decoding in profiles). `String.fromCharCode` with a fixed argument list is a V8 builtin that
// builds the one-byte string directly: about 25 ns for a span id and 55 ns for a trace id. Other lengths
// (invalid, but the receiver rules judge them, not the decoder) keep the native path.
//
// A trace id usually repeats across the spans of a request, so a decoder's IdHex remembers the last one
// with its bytes: comparing 16 bytes is cheaper than building the string again, and handing out one
// instance spares hashing it again wherever trace ids are Map keys downstream.
import type { SliceableBuffer } from '../bytes/string-cache.ts';

/** Hex digit character codes by nibble. */
const DIGIT: number[] = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102];

const fromCharCode = String.fromCharCode;

/** The 16 hex characters of the 8 bytes at `p`. */
function hex8(b: Uint8Array, p: number): string {
  const d = DIGIT;
  return fromCharCode(
    d[b[p] >> 4], d[b[p] & 15], d[b[p + 1] >> 4], d[b[p + 1] & 15],
    d[b[p + 2] >> 4], d[b[p + 2] & 15], d[b[p + 3] >> 4], d[b[p + 3] & 15],
    d[b[p + 4] >> 4], d[b[p + 4] & 15], d[b[p + 5] >> 4], d[b[p + 5] & 15],
    d[b[p + 6] >> 4], d[b[p + 6] & 15], d[b[p + 7] >> 4], d[b[p + 7] & 15],
  );
}

/** The 32 hex characters of the 16 bytes at `p`. */
function hex16(b: Uint8Array, p: number): string {
  const d = DIGIT;
  return fromCharCode(
    d[b[p] >> 4], d[b[p] & 15], d[b[p + 1] >> 4], d[b[p + 1] & 15],
    d[b[p + 2] >> 4], d[b[p + 2] & 15], d[b[p + 3] >> 4], d[b[p + 3] & 15],
    d[b[p + 4] >> 4], d[b[p + 4] & 15], d[b[p + 5] >> 4], d[b[p + 5] & 15],
    d[b[p + 6] >> 4], d[b[p + 6] & 15], d[b[p + 7] >> 4], d[b[p + 7] & 15],
    d[b[p + 8] >> 4], d[b[p + 8] & 15], d[b[p + 9] >> 4], d[b[p + 9] & 15],
    d[b[p + 10] >> 4], d[b[p + 10] & 15], d[b[p + 11] >> 4], d[b[p + 11] & 15],
    d[b[p + 12] >> 4], d[b[p + 12] & 15], d[b[p + 13] >> 4], d[b[p + 13] & 15],
    d[b[p + 14] >> 4], d[b[p + 14] & 15], d[b[p + 15] >> 4], d[b[p + 15] & 15],
  );
}

/**
 * True when `last` already holds the `last.length` bytes of `buf` at `start`; otherwise copies them in
 * and answers false. Spans of a request share their trace id and siblings their parent, so comparing
 * the bytes with the last id's is cheaper than converting them again.
 */
function sameAsLast(last: Uint8Array, buf: Buffer, start: number): boolean {
  const n = last.length;
  let i = 0;
  while (i < n && last[i] === buf[start + i]) i++;
  if (i === n) return true;
  for (let j = 0; j < n; j++) last[j] = buf[start + j];
  return false;
}

/** Lowercase hex of `len` bytes of `buf` at `start` (the bounds were checked by the caller). */
export function idHex(buf: Buffer, start: number, len: number): string {
  if (len === 8) return hex8(buf, start);
  if (len === 16) return hex16(buf, start);
  return (buf as SliceableBuffer).hexSlice(start, start + len);
}

/** Id conversion for one decoder: the last trace id and parent id are remembered with their bytes. */
export class IdHex {
  /** The last 16-byte id converted ('' before the first), and its bytes. */
  private lastTraceHex = '';
  private readonly lastTraceBytes = new Uint8Array(16);
  /** The last 8-byte parent id converted ('' before the first), and its bytes. */
  private lastParentHex = '';
  private readonly lastParentBytes = new Uint8Array(8);

  /** `idHex`, the instance of the last call handed out again for the same 16 bytes. */
  id(buf: Buffer, start: number, len: number): string {
    if (len !== 16) return idHex(buf, start, len);
    if (sameAsLast(this.lastTraceBytes, buf, start) && this.lastTraceHex !== '') return this.lastTraceHex;
    return (this.lastTraceHex = hex16(buf, start));
  }

  /**
   * `idHex` for parent span ids, remembered like trace ids. Alone this saves a string per span but
   * little time; siblings then share one string instance.
   */
  parentId(buf: Buffer, start: number, len: number): string {
    if (len !== 8) return idHex(buf, start, len);
    if (sameAsLast(this.lastParentBytes, buf, start) && this.lastParentHex !== '') return this.lastParentHex;
    return (this.lastParentHex = hex8(buf, start));
  }
}
