// This machine's byte order, for code that reads typed-array memory in native order: the 32-bit halves
// of a 64-bit slot (Uint64ToNumber) and the bytes of a Piece's words.

export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Index of the low 32-bit half of a 64-bit slot viewed as a Uint32Array. */
export const LOW_HALF = LITTLE_ENDIAN ? 0 : 1;
/** Index of the high 32-bit half. */
export const HIGH_HALF = 1 - LOW_HALF;

/**
 * `Number(v)` for `v` in [0, 2^64), without a heap BigInt: optimised code stores a bigint into a
 * BigUint64Array as machine arithmetic and reads the halves back as numbers, where `Number(a - b)` builds
 * a heap BigInt for the difference and a heap number (~56 B of garbage per call, docs/performance.md, round 0320). Exact
 * below 2^53, correctly rounded above (one rounding, of the sum). The slot is scratch: each user keeps an
 * instance of its own (a time writer, a namespace processor), none is shared.
 */
export class Uint64ToNumber {
  private readonly slot = new BigUint64Array(1);
  private readonly halves = new Uint32Array(this.slot.buffer);

  of(v: bigint): number {
    this.slot[0] = v;
    return this.halves[HIGH_HALF] * 4294967296 + this.halves[LOW_HALF];
  }
}
