// The SIMD scan (wasm-scan.ts) against scanJson (depth.ts), the general path: on every text, quickScan
// must give scanJson's answer (too deep, or the wide number tokens' byte ranges). The texts are
// token soups, not only valid JSON, since the scan runs before JSON.parse judges the text: brackets,
// quotes and backslashes inside and outside strings, strings around the 16-byte step, escapes at the
// very end, unterminated strings, UTF-8, number tokens of every width, with and without exponents.
import { describe, expect, it } from 'vitest';
import { pickWith, seededRandom } from '../../test/helpers/random.ts';
import { scanJson, type JsonScan } from './depth.ts';
import { quickScan, quickScanAvailable } from './wasm-scan.ts';

const CLEAN = { tooDeep: false, exactNumbers: false };

/** What quickScan must answer: scanJson's result, without the tokens before a too-deep bracket. */
function expected(bytes: Uint8Array, maxDepth: number): JsonScan {
  const scan = scanJson(bytes, maxDepth);
  return scan.tooDeep ? { tooDeep: true, exactNumbers: false } : scan;
}

const STRUCTURE = ['{', '}', '[', ']', ',', ':', ' ', '\n', 'true', 'null', 'false'];
const NUMBERS = [
  '0', '-1', '42', '3.25', '1e5', '2E-3', '-', '123456789012345', '1234567890123456', '-123456789012345',
  '1776363499123456789', '0.000000000000001', '12.5e', '--5', '1.2.3', '7+',
];
const STRING_CHARS = ['a', 'x', ' ', '{', '}', '[', ']', '\\"', '\\\\', '\\n', '\\u005b', 'é', '€', '😀', '"', '1e5'];

/** A string body: short ones (the byte path) and 14-40 characters (one or two 16-byte steps). */
function stringText(random: () => number): string {
  const length = random() < 0.5 ? Math.floor(random() * 6) : 14 + Math.floor(random() * 27);
  let s = '"';
  for (let k = 0; k < length; k++) s += random() < 0.85 ? 'abcdefghij'[k % 10] : pickWith(random, STRING_CHARS);
  return s + (random() < 0.97 ? '"' : '');
}

function tokenSoup(random: () => number): string {
  const tokens = Math.floor(random() * 60);
  let text = '';
  for (let k = 0; k < tokens; k++) {
    const r = random();
    if (r < 0.45) text += pickWith(random, STRUCTURE);
    else if (r < 0.94) text += stringText(random);
    else text += pickWith(random, NUMBERS);
  }
  // Sometimes end inside an escape or a string, where the 16-byte step must not look past the end.
  const end = random();
  if (end < 0.05) text += '"abc\\';
  else if (end < 0.1) text += '"' + 'y'.repeat(Math.floor(random() * 40));
  return text;
}

describe('quickScan (WebAssembly SIMD) against scanJson', () => {
  it('is available here, so the tests below exercise it', () => {
    expect(quickScanAvailable).toBe(true);
  });

  it('agrees on 20,000 random token soups and depth limits', () => {
    const random = seededRandom(4000);
    const seen = { clean: 0, tooDeep: 0, wide: 0 };
    for (let t = 0; t < 20_000; t++) {
      const text = tokenSoup(random);
      const maxDepth = Math.floor(random() * 6);
      const bytes = Buffer.from(text, 'utf8');
      const want = expected(bytes, maxDepth);
      expect(quickScan(bytes, maxDepth), `${maxDepth} ${text}`).toEqual(want);
      seen[want.tooDeep ? 'tooDeep' : want.exactNumbers ? 'wide' : 'clean']++;
    }
    // Each answer must be common enough for the agreement to mean something.
    for (const count of Object.values(seen)) expect(count, JSON.stringify(seen)).toBeGreaterThan(2000);
  });

  it('a body ending inside a string or an escape, at every offset around a page end', () => {
    for (const size of [65_536, 131_072]) {
      for (let tail = 1; tail < 40; tail++) {
        const body = Buffer.alloc(size, 0x20);
        body.write('["', size - tail - 2);
        body.fill(0x78, size - tail);
        expect(quickScan(body, 64), `${size} ${tail}`).toEqual(CLEAN);
        body[size - 1] = 0x5c; // an escape that would run past the end
        expect(quickScan(body, 64), `${size} ${tail}`).toEqual(CLEAN);
      }
    }
  });

  it('grows its memory for larger bodies and leaves very large ones to scanJson', () => {
    const deep = Buffer.from(' '.repeat(200_000) + '[[[[1]]]]');
    expect(quickScan(deep, 3)).toMatchObject({ tooDeep: true });
    expect(quickScan(deep, 4)).toEqual(CLEAN);
    expect(quickScan(Buffer.alloc(5 << 20, 0x20), 64)).toBeUndefined();
  });

  it('lists up to 8,192 wide tokens and leaves a body with more to scanJson', () => {
    const tokens = (count: number) => Buffer.from(`[${Array.from({ length: count }, () => '1776363499123456789').join(',')}]`);
    const many = tokens(8192);
    expect(quickScan(many, 64)).toEqual(scanJson(many, 64));
    expect(quickScan(tokens(8193), 64)).toBeUndefined();
  });

  it('limits beyond i32 and odd limits behave as in scanJson', () => {
    const text = Buffer.from('[[[[[1]]]]]');
    expect(quickScan(text, Number.POSITIVE_INFINITY)).toEqual(CLEAN);
    expect(quickScan(text, 2 ** 40)).toEqual(CLEAN);
    expect(quickScan(text, 4.5)).toEqual(expected(text, 4.5));
    expect(quickScan(text, Number.NaN)).toBeUndefined();
  });
});
