// parseJsonBytes against JSON.parse of the same text, with the exact value of every wide integer token
// written out by hand, and against the nesting depth the generator wrote. Random documents mix big
// integers in every notation, unicode escapes, duplicate keys and deep nesting, and some carry a broken
// number token, so both "same value" and "same refusal" are checked.
import { describe, expect, it } from 'vitest';
import { pickWith, seededRandom } from '../../test/helpers/random.ts';
import { parseJsonBytes } from './parse.ts';

const NUMBERS = [
  '0', '-0', '7', '-12', '12.5', '1e3', '1.5e300', '2e400', '-9007199254740993', '9007199254740992',
  '1776363499123456789', '-1776363499123456789', '12345678901234567890123', '1776363499123456789.000',
  '17763634991234567890e-1', '1.776363499123456789e18', '12345678901234567.5', '0.12345678901234567',
  '1E+20', '123456789012345678e-2',
];
/** The NUMBERS that are integers a double cannot hold exactly, as the exact values they denote. */
const EXACT: Record<string, bigint> = {
  '1.5e300': 15n * 10n ** 299n,
  '-9007199254740993': -9007199254740993n,
  '9007199254740992': 9007199254740992n,
  '1776363499123456789': 1776363499123456789n,
  '-1776363499123456789': -1776363499123456789n,
  '12345678901234567890123': 12345678901234567890123n,
  '1776363499123456789.000': 1776363499123456789n,
  '17763634991234567890e-1': 1776363499123456789n,
  '1.776363499123456789e18': 1776363499123456789n,
  '1E+20': 100000000000000000000n,
};
/** Tokens the number grammar refuses, each long enough to be looked at by the exact path. */
const BROKEN = [
  '012345678901234567', '1776363499123456789.', '-.12345678901234567', '12345678901234567e', '1e5e5',
  '--12345678901234567', '12345678901234567-', '1.2.345678901234567', '+12345678901234567', '12345678901234567E+',
];
const STRINGS = [
  '"x"', '"é€"', '"\\u00e9\\ud83d\\ude00"', '"\\u0001 marker look-alike"', '"1776363499123456789"',
  '"quote \\" and \\\\ backslash"', '"[[[{{{"', '""', '"\\u005b not a bracket"',
];
const KEYS = ['"a"', '"b"', '"\\u0061"', '"t"', '"0"', '"42"', '"__proto__"', '"é"'];

interface Doc {
  text: string;
  depth: number;
  broken: boolean;
}

function generate(random: () => number, level: number, maxLevel: number): Doc {
  const r = random();
  if (level >= maxLevel || r < 0.35) {
    if (random() < 0.01) return { text: pickWith(random, BROKEN), depth: 0, broken: true };
    const atom = random() < 0.6 ? pickWith(random, NUMBERS) : random() < 0.8 ? pickWith(random, STRINGS)
      : pickWith(random, ['true', 'false', 'null']);
    return { text: atom, depth: 0, broken: false };
  }
  const n = Math.floor(random() * 4) + (level < 2 ? 1 : 0);
  const items: Doc[] = Array.from({ length: n }, () => generate(random, level + 1, maxLevel));
  const depth = 1 + Math.max(0, ...items.map((d) => d.depth));
  const broken = items.some((d) => d.broken);
  if (r < 0.65) return { text: `[${items.map((d) => d.text).join(', ')}]`, depth, broken };
  // Keys drawn from a small set, so duplicates are common (the later value wins in JSON.parse).
  return { text: `{${items.map((d) => `${pickWith(random, KEYS)}:${d.text}`).join(',')}}`, depth, broken };
}

function reference(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    const value: unknown = JSON.parse(text, (_key, v, context?: { source?: string }) =>
      (context?.source !== undefined && Object.hasOwn(EXACT, context.source) ? EXACT[context.source] : v));
    return { ok: true, value };
  } catch {
    return { ok: false };
  }
}

describe('parseJsonBytes against JSON.parse and hand-written exact values', () => {
  it('agrees on 3,000 random documents: values, bigints, refusals and depth', () => {
    const random = seededRandom(3300);
    let exact = 0;
    let refused = 0;
    let tooDeep = 0;
    for (let t = 0; t < 3000; t++) {
      const doc = generate(random, 0, 1 + Math.floor(random() * 9));
      const maxDepth = 2 + Math.floor(random() * 8);
      const got = parseJsonBytes(Buffer.from(doc.text, 'utf8'), maxDepth);
      if (doc.depth > maxDepth) {
        // The depth on the text decides, even where duplicate keys dropped the deep part.
        expect(got, doc.text).toMatchObject({ ok: false, problem: 'too_deep' });
        tooDeep++;
        continue;
      }
      const want = reference(doc.text);
      if (!want.ok) {
        expect(got, doc.text).toMatchObject({ ok: false, problem: 'invalid_json' });
        refused++;
        continue;
      }
      expect(got, doc.text).toEqual(want);
      if (/\d{16}|[eE]/.test(doc.text)) exact++;
    }
    // Each branch must be well exercised for the comparison to say something.
    expect(exact).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(30);
    expect(tooDeep).toBeGreaterThan(300);
  });

  it('a broken wide token is a syntax error', () => {
    for (const token of BROKEN) {
      for (const text of [`[${token}]`, `{"a":${token}}`, `[1776363499123456789, ${token}]`, token]) {
        expect(reference(text).ok, text).toBe(false);
        expect(parseJsonBytes(Buffer.from(text), 64), text).toMatchObject({ ok: false, problem: 'invalid_json' });
      }
    }
  });
});
