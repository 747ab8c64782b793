// Ids travel as bytes in protobuf and as lowercase hex everywhere else (span-record.md). Decoding uses
// Buffer's native hex slicing; this is the encoding direction.

function nibble(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  if (code >= 97 && code <= 102) return code - 87; // a-f
  if (code >= 65 && code <= 70) return code - 55; // A-F
  return -1;
}

/** True when `s` is an even-length string of hex digits (either case). */
export function isHex(s: string): boolean {
  if ((s.length & 1) !== 0) return false;
  for (let i = 0; i < s.length; i++) if (nibble(s.charCodeAt(i)) < 0) return false;
  return true;
}

/** Bytes of a hex id; a non-hex pair becomes 0 (ids reaching an encoder were validated on the way in). */
export function hexToBytes(s: string, out: Uint8Array, offset: number): number {
  const n = s.length >> 1;
  for (let i = 0; i < n; i++) {
    const hi = nibble(s.charCodeAt(2 * i));
    const lo = nibble(s.charCodeAt(2 * i + 1));
    out[offset + i] = hi < 0 || lo < 0 ? 0 : (hi << 4) | lo;
  }
  return n;
}
