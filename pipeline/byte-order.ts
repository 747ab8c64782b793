// This machine's byte order, for code that reads typed-array memory in native order: the 32-bit halves
// of a 64-bit slot (a bigint stored into a BigUint64Array and read back as two numbers, which optimised
// code does without a heap BigInt) and the bytes of a Piece's words.

export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Index of the low 32-bit half of a 64-bit slot viewed as a Uint32Array. */
export const LOW_HALF = LITTLE_ENDIAN ? 0 : 1;
/** Index of the high 32-bit half. */
export const HIGH_HALF = 1 - LOW_HALF;
