import { describe, expect, it } from 'vitest';
import { parseTimestamp } from './time.ts';

/** Expected value from the platform's UTC calendar, plus nanoseconds below the millisecond. */
function utc(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0, subMsNs = 0): bigint {
  return BigInt(Date.UTC(y, mo - 1, d, h, mi, s, ms)) * 1_000_000n + BigInt(subMsNs);
}

describe('parseTimestamp (ingest-api.md §4.4)', () => {
  it('the examples table', () => {
    expect(parseTimestamp('2026-04-16T20:18:18+02:00')).toBe(utc(2026, 4, 16, 18, 18, 18));
    expect(parseTimestamp('2026-04-16 18:18:18.123456789123')).toBe(utc(2026, 4, 16, 18, 18, 18, 123, 456789));
    expect(parseTimestamp(1670000000)).toBe(utc(2022, 12, 2, 16, 53, 20));
    expect(parseTimestamp(1776363499123)).toBe(utc(2026, 4, 16, 18, 18, 19, 123));
    expect(parseTimestamp('1776363499123')).toBe(utc(2026, 4, 16, 18, 18, 19, 123));
    expect(parseTimestamp('1776363499123456789')).toBe(1776363499123456789n);
    expect(parseTimestamp(123456)).toBeUndefined();
    expect(parseTimestamp(1700000000.5)).toBeUndefined();
    expect(parseTimestamp('yesterday')).toBeUndefined();
  });

  it('ISO: separators T, t, space; optional seconds; fraction with . or ,', () => {
    const base = utc(2026, 4, 16, 18, 18);
    expect(parseTimestamp('2026-04-16T18:18')).toBe(base);
    expect(parseTimestamp('2026-04-16t18:18:00')).toBe(base);
    expect(parseTimestamp('2026-04-16 18:18:00Z')).toBe(base);
    expect(parseTimestamp('2026-04-16T18:18:18,5Z')).toBe(utc(2026, 4, 16, 18, 18, 18, 500));
    expect(parseTimestamp('2026-04-16T18:18:18.000000001Z')).toBe(utc(2026, 4, 16, 18, 18, 18) + 1n);
    // digits beyond nine are dropped, never rounded
    expect(parseTimestamp('2026-04-16T18:18:18.9999999999Z')).toBe(utc(2026, 4, 16, 18, 18, 18) + 999_999_999n);
  });

  it('offsets Z, z, +hh:mm, +hhmm, +hh and negative ones are subtracted', () => {
    const t = utc(2026, 4, 16, 18, 18, 18);
    expect(parseTimestamp('2026-04-16T18:18:18z')).toBe(t);
    expect(parseTimestamp('2026-04-16T20:48:18+0230')).toBe(t);
    expect(parseTimestamp('2026-04-16T20:18:18+02')).toBe(t);
    expect(parseTimestamp('2026-04-16T13:18:18-05:00')).toBe(t);
    expect(parseTimestamp('2026-04-17T00:18:18+06:00')).toBe(t);
  });

  it('no offset means UTC; a date alone is midnight UTC', () => {
    expect(parseTimestamp('2026-04-16T18:18:18')).toBe(utc(2026, 4, 16, 18, 18, 18));
    expect(parseTimestamp('2024-01-01')).toBe(utc(2024, 1, 1));
    expect(parseTimestamp('1970-01-01')).toBe(0n);
  });

  it('epoch integers by digit count: 10 s, 13 ms, 16 us, 19 ns', () => {
    expect(parseTimestamp(1776363499)).toBe(1776363499_000_000_000n);
    expect(parseTimestamp(1776363499123456)).toBe(1776363499123456000n);
    expect(parseTimestamp('1776363499123456')).toBe(1776363499123456000n);
    expect(parseTimestamp('1776363499')).toBe(1776363499_000_000_000n);
  });

  it('19-digit nanoseconds stay exact as bigint (receiver reads them exactly) and as strings', () => {
    expect(parseTimestamp(1776363499123456789n)).toBe(1776363499123456789n);
    expect(parseTimestamp('9999999999999999999')).toBe(9999999999999999999n);
    expect(parseTimestamp(1776363499n)).toBe(1776363499_000_000_000n);
  });

  it('an integral JSON number counts as an integer (1.7e9)', () => {
    expect(parseTimestamp(1.7e9)).toBe(1_700_000_000_000_000_000n);
  });

  it('leading zeros in digit strings do not count', () => {
    expect(parseTimestamp('0001776363499')).toBe(1776363499_000_000_000n);
    expect(parseTimestamp('0000000000')).toBeUndefined();
  });

  it.each([
    ['other digit counts', 12345678901],
    ['zero', 0],
    ['negative', -1776363499],
    ['negative bigint', -1776363499123456789n],
    ['fraction', 1776363499.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['20 digits', '17763634991234567890'],
    ['month 13', '2026-13-01'],
    ['Feb 30', '2026-02-30'],
    ['Feb 29 in a common year', '2026-02-29'],
    ['24:00', '2026-04-16T24:00'],
    ['leap second', '2026-04-16T23:59:60Z'],
    ['minute 60', '2026-04-16T23:60'],
    ['offset hour 24', '2026-04-16T18:18+24:00'],
    ['basic format', '20260416T181818Z'],
    ['date + offset without time', '2024-01-01Z'],
    ['trailing garbage', '2026-04-16T18:18:18Zx'],
    ['empty fraction', '2026-04-16T18:18:18.Z'],
    ['single-digit hour', '2026-04-16T8:18'],
    ['two-digit year', '26-04-16'],
    ['before the epoch', '1969-12-31T23:59:59Z'],
    ['past 2^64 ns', '2600-01-01T00:00:00Z'],
    ['empty', ''],
    ['word', 'yesterday'],
    ['boolean', true],
    ['object', {}],
    ['array', [1776363499]],
    ['null', null],
  ])('rejected: %s', (_label, v) => {
    expect(parseTimestamp(v)).toBeUndefined();
  });

  it('Feb 29 in a leap year, and the last representable years', () => {
    expect(parseTimestamp('2024-02-29T12:00:00Z')).toBe(utc(2024, 2, 29, 12));
    expect(parseTimestamp('2554-07-21T23:34:33Z')).toBe(utc(2554, 7, 21, 23, 34, 33));
  });
});
