// Uint64ToNumber against Number(bigint) as the oracle: exact below 2^53, and above it the one rounding
// to nearest (ties to even) that Number() does, over the edges of each range and random values.
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../test/helpers/random.ts';
import { Uint64ToNumber } from './byte-order.ts';

const TWO_53 = 1n << 53n;
const TWO_64 = 1n << 64n;

describe('Uint64ToNumber', () => {
  const toNumber = new Uint64ToNumber();
  it('gives Number(v) at the edges of the 32-bit halves, the safe range and 2^64', () => {
    const edges = [
      0n, 1n, 0xffff_ffffn, 1n << 32n, (1n << 32n) + 1n, TWO_53 - 1n, TWO_53, TWO_53 + 1n, TWO_53 + 2n, TWO_53 + 3n,
      (1n << 54n) + 2n, (1n << 54n) + 6n, (1n << 63n) - 1n, 1n << 63n, TWO_64 - 1025n, TWO_64 - 1024n, TWO_64 - 1n,
    ];
    for (const v of edges) expect(toNumber.of(v), `${v}`).toBe(Number(v));
  });

  it('gives Number(v) for random values of every width', () => {
    const random = seededRandom(64);
    for (let i = 0; i < 20_000; i++) {
      const hi = BigInt(Math.floor(random() * 2 ** 32));
      const lo = BigInt(Math.floor(random() * 2 ** 32));
      const v = ((hi << 32n) | lo) >> BigInt(Math.floor(random() * 64));
      expect(toNumber.of(v)).toBe(Number(v));
    }
  });
});
