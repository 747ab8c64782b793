// Ids travel as bytes in protobuf and as lowercase hex everywhere else (span-record.md). Decoding uses
// Buffer's native hex slicing; this is the encoding direction.

/** Value of each hex digit's char code, -1 for every other code below 128. */
const NIBBLES = new Int8Array(128).fill(-1);
for (let d = 0; d < 16; d++) {
  NIBBLES['0123456789abcdef'.charCodeAt(d)] = d;
  NIBBLES['0123456789ABCDEF'.charCodeAt(d)] = d;
}

function nibble(code: number): number {
  return code < 128 ? NIBBLES[code] : -1;
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
