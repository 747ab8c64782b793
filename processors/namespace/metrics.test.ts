import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/helpers/random.ts';
import { Uint64ToNumber } from '../../model/byte-order.ts';
import { lengthNs } from './metrics.ts';

// lengthNs is Number(end - start) without the heap BigInt: it must give the very same double, including
// where the difference is beyond 2^53 and has to be rounded, and outside the slot's [0, 2^64) range.

function randomU64(random: () => number, bits: number): bigint {
  let v = 0n;
  for (let b = 0; b < bits; b += 16) v = (v << 16n) | BigInt(Math.floor(random() * 65536));
  return v & ((1n << BigInt(bits)) - 1n);
}

describe('lengthNs', () => {
  const toNumber = new Uint64ToNumber();
  it('equals Number(end - start) for random times of every magnitude', () => {
    const random = seededRandom(4301);
    for (let i = 0; i < 20000; i++) {
      const start = randomU64(random, 1 + Math.floor(random() * 64));
      const length = randomU64(random, 1 + Math.floor(random() * 64));
      const end = start + length;
      expect(lengthNs(start, end, toNumber), `${start} ${end}`).toBe(Number(end - start));
    }
  });

  it('rounds as Number does at the 2^53 boundary and its ties, and at the top of the 64-bit range', () => {
    const cases: Array<[bigint, bigint]> = [];
    for (const base of [1n << 53n, 1n << 54n, 1n << 63n, (1n << 64n) - 1n]) {
      for (let d = -3n; d <= 3n; d++) cases.push([0n, base + d], [5n, base + d + 5n]);
    }
    cases.push([1n, (1n << 64n) - 1n], [(1n << 64n) - 2n, (1n << 64n) - 1n]);
    for (const [start, end] of cases) {
      if (end <= start) continue;
      expect(lengthNs(start, end, toNumber), `${start} ${end}`).toBe(Number(end - start));
    }
  });

  it('falls back to Number for times outside [0, 2^64) (negative starts, ends past 64 bits)', () => {
    const cases: Array<[bigint, bigint]> = [
      [-5n, 10n], [-(1n << 63n), 1n << 63n], [0n, 1n << 64n], [1n, (1n << 70n) + 3n], [-(1n << 65n), -1n],
    ];
    for (const [start, end] of cases) expect(lengthNs(start, end, toNumber)).toBe(Number(end - start));
  });

  it('is what the namespace writes as ag.metrics.duration.cumulative (ms)', async () => {
    const { computeSpanMetrics } = await import('./metrics.ts');
    const c: { durationCumulative?: number | bigint } = {};
    const span = { startNs: 1776363498001000000n, endNs: 1776363498251000123n, events: undefined };
    computeSpanMetrics(span as never, c as never, new Uint64ToNumber());
    expect(c.durationCumulative).toBe(250.000123);
  });
});
