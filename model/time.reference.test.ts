// parseTimestamp against a reference written straight from ingest-api.md §4.4 (a regular expression,
// Date.UTC and BigInt(text)), on random valid, near-valid and mutated inputs in random order.
import { describe, expect, it } from 'vitest';
import { pickWith, seededRandom } from '../test/helpers/random.ts';
import { parseTimestamp } from './time.ts';

const NS_LIMIT = 1n << 64n;
const SCALE_BY_DIGITS: Record<number, bigint> = { 10: 1_000_000_000n, 13: 1_000_000n, 16: 1_000n, 19: 1n };
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:[Zz]|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

function inRange(ns: bigint): bigint | undefined {
  return ns >= 0n && ns < NS_LIMIT ? ns : undefined;
}

function referenceEpoch(value: bigint): bigint | undefined {
  if (value <= 0n) return undefined;
  const scale = SCALE_BY_DIGITS[value.toString().length];
  return scale === undefined ? undefined : inRange(value * scale);
}

function referenceIso(s: string): bigint | undefined {
  const m = ISO.exec(s);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [h, mi, sec] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59) return undefined;
  // Date.UTC rolls overflowing days into the next month: a date that does not round-trip does not exist.
  const date = new Date(Date.UTC(2000, mo - 1, d));
  date.setUTCFullYear(y);
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return undefined;
  const [oh, om] = [Number(m[9] ?? 0), Number(m[10] ?? 0)];
  if (oh > 23 || om > 59) return undefined;
  const offset = (oh * 3600 + om * 60) * (m[8] === '-' ? -1 : 1);
  const seconds = BigInt(date.getTime() / 1000 + h * 3600 + mi * 60 + sec - offset);
  const fraction = BigInt(((m[7] ?? '') + '000000000').slice(0, 9));
  return inRange(seconds * 1_000_000_000n + fraction);
}

function reference(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return referenceEpoch(v);
  if (typeof v === 'number') return Number.isInteger(v) ? referenceEpoch(BigInt(v)) : undefined;
  if (typeof v !== 'string' || v === '') return undefined;
  return /^[0-9]+$/.test(v) ? referenceEpoch(BigInt(v)) : referenceIso(v);
}

function digits(random: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += Math.floor(random() * 10);
  return s;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** A time near the others (same or neighbouring seconds), in one of the §4.4 forms, sometimes broken. */
function randomInput(random: () => number): unknown {
  const base = 1_776_363_498 + Math.floor(random() * 3) + (random() < 0.1 ? Math.floor(random() * 1e9) : 0);
  const form = Math.floor(random() * 8);
  let v: unknown;
  switch (form) {
    case 0: v = String(base) + digits(random, pickWith(random, [0, 3, 6, 9, 1, 8, 10])); break;
    case 1: v = pickWith(random, ['', '0', '00']) + String(base) + digits(random, pickWith(random, [0, 3, 6, 9])); break;
    case 2: v = Number(String(base) + digits(random, pickWith(random, [0, 3, 6]))); break;
    case 3: v = BigInt(String(base) + digits(random, pickWith(random, [0, 3, 6, 9, 12]))); break;
    case 4: v = random() < 0.5 ? base : base + random(); break;
    default: {
      const y = pickWith(random, [1969, 1970, 2024, 2026, 2100, 2554, 2555, 9999]);
      const mo = Math.floor(random() * 14);
      const d = Math.floor(random() * 32);
      let s = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}`;
      if (random() < 0.9) {
        s += pickWith(random, ['T', 't', ' ', 'x']) + pad(Math.floor(random() * 25), 2) + ':' + pad(Math.floor(random() * 61), 2);
        if (random() < 0.8) {
          s += ':' + pad(Math.floor(random() * 61), 2);
          if (random() < 0.7) s += pickWith(random, ['.', ',']) + digits(random, Math.floor(random() * 13));
        }
        s += pickWith(random, ['', 'Z', 'z', '+02:00', '-05:30', '+0230', '+02', '-24:00', '+01:60', 'Zx']);
      }
      v = s;
    }
  }
  if (typeof v === 'string' && v.length > 0 && random() < 0.1) {
    // One character replaced by a digit, a separator or a letter.
    const at = Math.floor(random() * v.length);
    v = v.slice(0, at) + pickWith(random, ['0', '9', ':', '-', 'T', 'a', '.']) + v.slice(at + 1);
  }
  return v;
}

describe('parseTimestamp against a reference from the spec', () => {
  it('agrees on 60,000 random inputs in random order (valid, invalid, repeated seconds)', () => {
    const random = seededRandom(20261121);
    let accepted = 0;
    for (let i = 0; i < 60_000; i++) {
      const v = randomInput(random);
      const expected = reference(v);
      const got = parseTimestamp(v);
      if (got !== expected) expect({ input: v, got }).toEqual({ input: v, got: expected });
      if (expected !== undefined) accepted++;
    }
    // Both outcomes must be well represented, or the comparison says little.
    expect(accepted).toBeGreaterThan(15_000);
    expect(accepted).toBeLessThan(45_000);
  });

  it('the same second with different fractions, alternating with another second', () => {
    const inputs = ['1776363498000000001', '1776363498999999999', '1776363499', '1776363498', '1776363498123'];
    for (let round = 0; round < 3; round++) {
      for (const s of inputs) expect(parseTimestamp(s)).toBe(BigInt(s.padEnd(19, '0')));
    }
  });

  it('the edge of 2^64 nanoseconds, from every form', () => {
    expect(parseTimestamp('2554-07-21T23:34:33.709551615Z')).toBe(NS_LIMIT - 1n);
    expect(parseTimestamp('2554-07-21T23:34:33.709551616Z')).toBeUndefined();
    expect(parseTimestamp('2554-07-21T23:34:34Z')).toBeUndefined();
    expect(parseTimestamp('9999999999999999999')).toBe(9_999_999_999_999_999_999n);
    expect(parseTimestamp(18_446_744_073_709_551_615n)).toBeUndefined(); // 20 digits
  });
});
