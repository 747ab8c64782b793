import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/helpers/random.ts';
import { formatTimeNs } from './time-format.ts';

const msOf = (iso: string) => BigInt(Date.parse(iso));

describe('formatTimeNs', () => {
  // The output column of ingest-api.md §4.4, from the nanoseconds each input normalises to.
  it.each([
    ['"2026-04-16T20:18:18+02:00"', msOf('2026-04-16T18:18:18Z') * 1_000_000n, '2026-04-16T18:18:18Z'],
    ['"2026-04-16 18:18:18.123456789123"', msOf('2026-04-16T18:18:18Z') * 1_000_000n + 123_456_789n,
      '2026-04-16T18:18:18.123456789Z'],
    ['1670000000', 1_670_000_000n * 1_000_000_000n, '2022-12-02T16:53:20Z'],
    ['1776363499123', 1_776_363_499_123n * 1_000_000n, '2026-04-16T18:18:19.123Z'],
    ['"1776363499123456789"', 1_776_363_499_123_456_789n, '2026-04-16T18:18:19.123456789Z'],
  ])('§4.4 input %s -> %s', (_input, ns, expected) => {
    expect(formatTimeNs(ns)).toBe(expected);
  });

  it('trims trailing zeros of the fraction and keeps leading ones', () => {
    const base = msOf('2026-04-16T18:18:19Z') * 1_000_000n;
    expect(formatTimeNs(base + 500_000_000n)).toBe('2026-04-16T18:18:19.5Z');
    expect(formatTimeNs(base + 1n)).toBe('2026-04-16T18:18:19.000000001Z');
    expect(formatTimeNs(base + 10n)).toBe('2026-04-16T18:18:19.00000001Z');
    expect(formatTimeNs(base + 120_000n)).toBe('2026-04-16T18:18:19.00012Z');
    expect(formatTimeNs(base + 999_999_999n)).toBe('2026-04-16T18:18:19.999999999Z');
  });

  it('writes the epoch and the largest valid time (2^64 - 1 ns)', () => {
    expect(formatTimeNs(0n)).toBe('1970-01-01T00:00:00Z');
    expect(formatTimeNs(2n ** 64n - 1n)).toBe('2554-07-21T23:34:33.709551615Z');
  });

  it('rolls over days, months and leap days', () => {
    const midnight = msOf('2024-03-01T00:00:00Z') * 1_000_000n;
    expect(formatTimeNs(midnight - 1n)).toBe('2024-02-29T23:59:59.999999999Z');
    expect(formatTimeNs(midnight)).toBe('2024-03-01T00:00:00Z');
    expect(formatTimeNs(midnight + 3_723_000_000_000n)).toBe('2024-03-01T01:02:03Z');
  });

  it('does not reuse the cached second for a different second', () => {
    const a = msOf('2026-04-16T18:18:19Z') * 1_000_000n;
    expect(formatTimeNs(a)).toBe('2026-04-16T18:18:19Z');
    expect(formatTimeNs(a + 1_000_000_000n)).toBe('2026-04-16T18:18:20Z');
    expect(formatTimeNs(a + 7n)).toBe('2026-04-16T18:18:19.000000007Z');
  });

  it('agrees with Date for times spread over the valid range, fraction digits included', () => {
    let ns = 1n;
    for (let i = 0; i < 2000; i++) {
      // A deterministic walk over many days, seconds and fraction lengths.
      ns = (ns * 6364136223846793005n + 1442695040888963407n) % (2n ** 64n);
      const value = i % 3 === 0 ? ns - (ns % 1000n) : ns;
      const ms = value / 1_000_000n;
      const whole = new Date(Number(ms)).toISOString().slice(0, 19);
      const fraction = (value % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
      expect(formatTimeNs(value)).toBe(whole + (fraction === '' ? '' : '.' + fraction) + 'Z');
    }
  });

  // The writer keeps the last day and second it wrote and formats from the offset into that day; this
  // checks it against a reference built on Date alone, in orders that hit and miss those caches.
  it('agrees with a Date-based reference across cached days and seconds, before the epoch too', () => {
    const NS = 1_000_000_000n;
    const reference = (ns: bigint): string => {
      let second = ns / NS;
      if (second * NS > ns) second -= 1n; // floor, for times before the epoch
      const fraction = (ns - second * NS).toString().padStart(9, '0').replace(/0+$/, '');
      return new Date(Number(second) * 1000).toISOString().slice(0, 19) + (fraction === '' ? '' : '.' + fraction) + 'Z';
    };
    const random = seededRandom(320);
    const bits = (n: number): bigint => {
      let v = 0n;
      for (let i = 0; i < n; i += 16) v = (v << 16n) | BigInt(Math.floor(random() * 65536));
      return v & ((1n << BigInt(n)) - 1n);
    };
    const anchors = [
      0n, -1n, msOf('2024-02-29T00:00:00Z') * 1_000_000n, msOf('2024-03-01T00:00:00Z') * 1_000_000n,
      msOf('2000-02-29T23:59:59Z') * 1_000_000n, msOf('1969-12-31T23:59:59Z') * 1_000_000n,
      msOf('1900-03-01T00:00:00Z') * 1_000_000n, 2n ** 64n - 1n, 1_776_363_498_000_000_000n,
    ];
    let ns = 0n;
    for (let i = 0; i < 20_000; i++) {
      const step = i % 6;
      if (step === 0) ns = anchors[Math.floor(random() * anchors.length)] + bits(40) - (1n << 39n);
      else if (step === 1) ns = bits(64) - (random() < 0.1 ? 1n << 63n : 0n); // anywhere, pre-epoch at times
      else if (step === 2) ns += bits(30); // same second or the next ones
      else if (step === 3) ns -= bits(37); // back across seconds, sometimes a day
      else if (step === 4) ns = ns - (ns % 1_000_000n) + (random() < 0.5 ? 0n : 1_000_000n); // whole ms
      else ns += BigInt(Math.floor(random() * 7) - 3) * 86_400n * NS; // another day, same time of day
      if (random() < 0.2) ns -= ns % NS; // a whole second: no fraction at all
      expect(formatTimeNs(ns), String(ns)).toBe(reference(ns));
    }
  });
});
