import { describe, expect, it } from 'vitest';
import { pickWith, seededRandom } from '../../test/helpers/random.ts';
import { scanJson } from './depth.ts';
import { exactInteger, parseJsonBytes, stringifyJson } from './parse.ts';

const bytes = (s: string) => Buffer.from(s, 'utf8');

describe('scanJson', () => {
  it('counts the top-level value as depth 1', () => {
    expect(scanJson(bytes('{}'), 1).tooDeep).toBe(false);
    expect(scanJson(bytes('{"a":[]}'), 1).tooDeep).toBe(true);
    expect(scanJson(bytes('{"a":[]}'), 2).tooDeep).toBe(false);
  });

  it('refuses depth 65 at the default limit and accepts 64', () => {
    const nest = (d: number) => '['.repeat(d) + ']'.repeat(d);
    expect(scanJson(bytes(nest(64)), 64).tooDeep).toBe(false);
    expect(scanJson(bytes(nest(65)), 64).tooDeep).toBe(true);
  });

  it('ignores brackets inside strings, including after escaped quotes and backslashes', () => {
    expect(scanJson(bytes('{"a":"[[[[{{{{"}'), 1).tooDeep).toBe(false);
    expect(scanJson(bytes('{"a":"x\\"[[[["}'), 1).tooDeep).toBe(false);
    // `\\` ends with an escaped backslash, so the quote after it closes the string.
    expect(scanJson(bytes('{"a":"x\\\\","b":[[]]}'), 2).tooDeep).toBe(true);
  });

  it('scans a 10,000-deep body without recursion', () => {
    const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    expect(scanJson(bytes(deep), 64).tooDeep).toBe(true);
  });

  it('flags numbers that may not fit a double, but not digits inside strings', () => {
    expect(scanJson(bytes('{"t":1776363499}'), 64).exactNumbers).toBe(false);
    expect(scanJson(bytes('{"t":"1776363499123456789"}'), 64).exactNumbers).toBe(false);
    expect(scanJson(bytes('{"t":1776363499123456789}'), 64).exactNumbers).toBe(true);
    expect(scanJson(bytes('[1.7e9]'), 64).exactNumbers).toBe(true);
  });

  it('survives unterminated strings and stray closers', () => {
    expect(scanJson(bytes('{"a":"[[['), 1).tooDeep).toBe(false);
    expect(scanJson(bytes(']]]]{'), 1).tooDeep).toBe(false);
  });
});

describe('exactInteger', () => {
  it('reads integer literals exactly, in every notation', () => {
    expect(exactInteger('1776363499123456789')).toBe(1776363499123456789n);
    expect(exactInteger('-9007199254740993')).toBe(-9007199254740993n);
    expect(exactInteger('1.5e3')).toBe(1500n);
    expect(exactInteger('1776363499123456789.000')).toBe(1776363499123456789n);
    expect(exactInteger('17763634991234567890e-1')).toBe(1776363499123456789n);
    expect(exactInteger('1e20')).toBe(100000000000000000000n);
  });

  it('gives undefined for literals that are not integers', () => {
    expect(exactInteger('12e-1')).toBeUndefined();
    expect(exactInteger('9007199254740993.5')).toBeUndefined();
    expect(exactInteger('abc')).toBeUndefined();
  });
});

/** parseJsonBytes' value for `text`, which must parse. */
function valueOf(text: string): unknown {
  const got = parseJsonBytes(bytes(text), 64);
  if (!got.ok) throw new Error(`${text}: ${got.message}`);
  return got.value;
}

describe('parseJsonBytes numbers', () => {
  it('keeps integers beyond 2^53 exact as bigint', () => {
    const v = valueOf('{"a":1776363499123456789,"b":12,"c":"1776363499123456789","d":1.5}');
    expect(v).toEqual({ a: 1776363499123456789n, b: 12, c: '1776363499123456789', d: 1.5 });
  });

  it('is JSON.parse when no number is wide', () => {
    const text = '{"a":[1,-2.5,1776363499,"x"],"b":{"c":null}}';
    expect(valueOf(text)).toEqual(JSON.parse(text));
  });

  it('keeps huge non-integer literals as numbers', () => {
    const v = valueOf('[12345678901234567.5, 2e400]') as unknown[];
    expect(typeof v[0]).toBe('number');
    expect(v[1]).toBe(Infinity);
  });
});

describe('parseJsonBytes', () => {
  it('parses, switching to the exact path by itself', () => {
    const r = parseJsonBytes(bytes('{"spans":[{"start_time":1776363499123456789}]}'), 64);
    expect(r).toEqual({ ok: true, value: { spans: [{ start_time: 1776363499123456789n }] } });
  });

  it('reports empty, too deep, bad UTF-8 and bad JSON, depth first', () => {
    expect(parseJsonBytes(new Uint8Array(0), 64)).toMatchObject({ ok: false, problem: 'empty' });
    expect(parseJsonBytes(bytes('[[[1]]]'), 2)).toMatchObject({ ok: false, problem: 'too_deep' });
    const badUtf8 = Buffer.concat([bytes('{"a":"'), Buffer.from([0xc3, 0x28]), bytes('"}')]);
    expect(parseJsonBytes(badUtf8, 64)).toMatchObject({ ok: false, problem: 'invalid_utf8' });
    const deepAndBad = Buffer.concat([bytes('[[['), Buffer.from([0xff])]);
    expect(parseJsonBytes(deepAndBad, 2)).toMatchObject({ ok: false, problem: 'too_deep' });
    expect(parseJsonBytes(bytes('{"a":'), 64)).toMatchObject({ ok: false, problem: 'invalid_json' });
  });

  it('accepts a plain Uint8Array view into a larger buffer', () => {
    const backing = bytes('xx{"a":1}yy');
    const view = new Uint8Array(backing.buffer, backing.byteOffset + 2, 7);
    expect(parseJsonBytes(view, 64)).toEqual({ ok: true, value: { a: 1 } });
  });
});

describe('stringifyJson', () => {
  it('writes bigints back as exact number literals', () => {
    expect(stringifyJson({ a: 1776363499123456789n, b: [1, 'x'] })).toBe('{"a":1776363499123456789,"b":[1,"x"]}');
  });
});

describe('parseJsonBytes exact numbers', () => {
  const cases: Array<[string, unknown]> = [
    ['{"a":1776363499123456789,"b":[-9007199254740993,1.5e3,12e-1,0.12345678901234567]}',
      { a: 1776363499123456789n, b: [-9007199254740993n, 1500, 1.2, 0.12345678901234567] }],
    ['1776363499123456789', 1776363499123456789n],
    ['-12345678901234567890123', -12345678901234567890123n],
    ['[1e20, 1E+2, 2e400, -0.0000000000000001e-5]', [100000000000000000000n, 100, Infinity, -1e-21]],
    ['{"é€😀":"ünïcode","t":1776363499123456789,"s":"1776363499123456789 and \\" quote"}',
      { 'é€😀': 'ünïcode', t: 1776363499123456789n, s: '1776363499123456789 and " quote' }],
    ['{"deep":{"x":[{"y":[12345678901234567890]}]}, "n": null, "f": false}',
      { deep: { x: [{ y: [12345678901234567890n] }] }, n: null, f: false }],
    ['{"ctl":"\\u0001 already here","t":1776363499123456789}', { ctl: '\u0001 already here', t: 1776363499123456789n }],
    ['[9007199254740991, 9007199254740992, 9007199254740993]', [9007199254740991, 9007199254740992n, 9007199254740993n]],
  ];
  for (const [text, want] of cases) {
    it(text, () => {
      expect(valueOf(text)).toEqual(want);
    });
  }

  it('an own __proto__ member, as JSON.parse makes it', () => {
    const v = valueOf('{"__proto__":{"t":1776363499123456789}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(v, '__proto__')?.value).toEqual({ t: 1776363499123456789n });
  });

  it('keeps invalid JSON invalid: bad number tokens, a number as a key', () => {
    for (const text of [
      '{"a":012345678901234567}', '[1e5e5]', '[--12345678901234567]', '{12345678901234567:1}',
      '[12345678901234567 12345678901234567]', '[12345678901234567true]', '{"a":1.e99}',
    ]) {
      expect(parseJsonBytes(bytes(text), 64), text).toMatchObject({ ok: false, problem: 'invalid_json' });
    }
  });

  it('random documents: JSON.parse values, the wide integers exact', () => {
    const exact: Record<string, bigint> = { '1776363499123456789': 1776363499123456789n, '-9007199254740993': -9007199254740993n, '1.5e300': 15n * 10n ** 299n };
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    const atoms = ['1776363499123456789', '-9007199254740993', '1.5e300', '12.5', '7', '"x"', '"1234567890123456789"', 'true', 'null', '"é"'];
    const gen = (depth: number): string => {
      const r = next();
      if (depth > 3 || r < 0.4) return atoms[Math.floor(next() * atoms.length)];
      const n = Math.floor(next() * 4);
      const items = Array.from({ length: n }, (_, i) => (r < 0.7 ? '' : `"k${i}":`) + gen(depth + 1));
      return r < 0.7 ? `[${items.join(',')}]` : `{${items.join(',')}}`;
    };
    for (let i = 0; i < 300; i++) {
      const text = gen(0);
      const want = JSON.parse(text, (_key, value, context?: { source?: string }) =>
        (context?.source !== undefined && context.source in exact ? exact[context.source] : value));
      expect(valueOf(text), text).toEqual(want);
    }
  });
});

describe('scanJson against a byte-at-a-time reading', () => {
  /** The plainest reading of the same rules: one byte per step, strings skipped up to their quote. */
  function reference(bytes: Uint8Array, maxDepth: number) {
    let depth = 0;
    let exactNumbers = false;
    let containers = 0;
    let i = 0;
    const result = (tooDeep: boolean) => ({ tooDeep, exactNumbers, containers });
    while (i < bytes.length) {
      const c = bytes[i++];
      if (c === 0x22) {
        for (;;) {
          if (i >= bytes.length) return result(false);
          const d = bytes[i++];
          if (d === 0x22) break;
          if (d === 0x5c) i++;
        }
      } else if (c === 0x7b || c === 0x5b) {
        containers++;
        if (++depth > maxDepth) return result(true);
      } else if (c === 0x7d || c === 0x5d) depth--;
      else if ((c >= 0x30 && c <= 0x39) || c === 0x2d) {
        let digits = c === 0x2d ? 0 : 1;
        let exponent = false;
        for (; i < bytes.length; i++) {
          const d = bytes[i];
          if (d >= 0x30 && d <= 0x39) digits++;
          else if (d === 0x65 || d === 0x45) exponent = true;
          else if (d !== 0x2d && d !== 0x2b && d !== 0x2e) break;
        }
        if (exponent || digits >= 16) exactNumbers = true;
      }
    }
    return result(false);
  }

  it('agrees on random texts made of quotes, backslashes, brackets, digits and letters', () => {
    const alphabet = Buffer.from('""\\\\{}[]0123456789-+.eE ab:,');
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let t = 0; t < 3000; t++) {
      const bytes = Buffer.alloc(1 + Math.floor(random() * 60));
      for (let i = 0; i < bytes.length; i++) bytes[i] = alphabet[Math.floor(random() * alphabet.length)];
      for (const maxDepth of [1, 3, 64]) {
        expect(scanJson(bytes, maxDepth), bytes.toString('latin1')).toEqual(reference(bytes, maxDepth));
      }
    }
  });

  it('agrees on texts with long strings (native search), backslash runs before quotes and UTF-8', () => {
    // Long plain runs send strings past the loop's length limit; runs of backslashes right before a
    // quote decide whether the native search found the end or an escaped quote.
    const random = seededRandom(330);
    const plain = Buffer.from('abc xyz:,{}[]0123456789é€');
    for (let t = 0; t < 2000; t++) {
      const parts: Buffer[] = [];
      const segments = 1 + Math.floor(random() * 12);
      for (let k = 0; k < segments; k++) {
        const run = Math.floor(random() * (random() < 0.3 ? 400 : 40));
        const seg = Buffer.alloc(run);
        for (let i = 0; i < run; i++) seg[i] = plain[Math.floor(random() * plain.length)];
        parts.push(seg, Buffer.from('\\'.repeat(Math.floor(random() * 4)) + pickWith(random, ['"', '\\"', '', '[', '{"a":'])));
      }
      const bytes = Buffer.concat(parts);
      for (const maxDepth of [1, 4, 64]) {
        expect(scanJson(bytes, maxDepth), bytes.toString('latin1')).toEqual(reference(bytes, maxDepth));
      }
      // A plain Uint8Array view (not a Buffer) takes the same path.
      const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      expect(scanJson(view, 64).tooDeep).toBe(scanJson(bytes, 64).tooDeep);
    }
  });
});
