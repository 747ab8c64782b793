// The WebAssembly escape kernel (wasm-escape.ts) against JSON.stringify, the reference it must match
// byte for byte: every byte class at every offset around the 16-byte step and in the tail, runs of
// escapes, multi-byte characters, and the one case it hands back (U+FFFD in the UTF-8).
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/helpers/random.ts';
import { copyEscaped, escapeKernelAvailable, escapeText, MAX_KERNEL_TEXT } from './wasm-escape.ts';

/** Characters of every class the kernel treats differently, weighted towards the ones it escapes. */
const ODD = [
  '"', '\\', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u0001', '\u000b', '\u001f', '\u007f', ' ', '/',
  'é', '€', '日', '😀', '\u2028', '\uff0c', '\uffbd', '\uffff', '\ufffc', '\uef00',
];

/** What the kernel must write: JSON.stringify's literal without its quotes. */
function reference(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** The kernel's output for `text`, written after a guard byte and followed by one, both checked. */
function escaped(text: string): string | undefined {
  const n = escapeText(text);
  if (n < 0) return undefined;
  const target = Buffer.alloc(n + 2, 0xaa);
  copyEscaped(target, 1, n);
  expect(target[0]).toBe(0xaa);
  expect(target[1 + n]).toBe(0xaa);
  return target.toString('utf8', 1, 1 + n);
}

function randomText(random: () => number, length: number, oddShare: number): string {
  let text = '';
  for (let i = 0; i < length; i++) {
    text += random() < oddShare ? ODD[Math.floor(random() * ODD.length)] : 'abcdefghijklmnop'[i % 16];
  }
  return text;
}

describe('escape (WebAssembly SIMD) against JSON.stringify', () => {
  it('is available here, so the tests below exercise it', () => {
    expect(escapeKernelAvailable).toBe(true);
  });

  it('writes every byte below 0x20, quote and backslash as JSON.stringify does, at every offset of the step and the tail', () => {
    const specials = [...Array.from({ length: 32 }, (_, c) => String.fromCharCode(c)), '"', '\\', '\u007f'];
    for (const c of specials) {
      for (let at = 0; at < 40; at++) {
        const text = 'x'.repeat(at) + c + 'y'.repeat(39 - at);
        expect(escaped(text), JSON.stringify(text)).toBe(reference(text));
      }
    }
  });

  it('agrees on 20,000 random texts of 0-200 characters, sparse and dense in escapes', () => {
    const random = seededRandom(4800);
    for (let t = 0; t < 20_000; t++) {
      const text = randomText(random, Math.floor(random() * 201), t % 3 === 0 ? 0.5 : 0.05);
      expect(escaped(text), JSON.stringify(text)).toBe(reference(text));
    }
  });

  it('hands back exactly the texts whose UTF-8 holds U+FFFD: the character itself or a lone surrogate', () => {
    const random = seededRandom(4801);
    for (const odd of ['\ufffd', '\ud800', '\udfff', '\udbff']) {
      for (let t = 0; t < 200; t++) {
        const before = randomText(random, Math.floor(random() * 40), 0.2);
        const after = randomText(random, Math.floor(random() * 40), 0.2);
        expect(escaped(before + odd + after)).toBeUndefined();
      }
    }
    // 0xef-led characters other than U+FFFD, and a pair of surrogates, are written.
    for (const text of ['\uff0c'.repeat(40), '\uffbd\uffbf'.repeat(20), '😀'.repeat(30), 'a\uefbf\ufffe\uffbe']) {
      expect(escaped(text)).toBe(reference(text));
    }
  });

  it('grows its memory for the longest text it takes, six bytes out per character, and leaves longer ones', () => {
    const worst = '\u0001'.repeat(MAX_KERNEL_TEXT);
    expect(escaped(worst) === reference(worst)).toBe(true);
    // Exactly MAX_KERNEL_TEXT UTF-16 units (the emoji, two units each, become one-unit characters).
    const mixed = randomText(seededRandom(4802), MAX_KERNEL_TEXT, 0.3).replaceAll('😀', '日');
    expect(mixed.length).toBe(MAX_KERNEL_TEXT);
    expect(escaped(mixed) === reference(mixed)).toBe(true);
    expect(escapeText('a'.repeat(MAX_KERNEL_TEXT + 1))).toBe(-1);
    // Short texts after long ones: nothing of the earlier output shows through.
    expect(escaped('after "it"\n')).toBe(reference('after "it"\n'));
  });
});
