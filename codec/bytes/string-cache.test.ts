import { describe, expect, it } from 'vitest';
import { hashBytes, StringCache, type SliceableBuffer } from './string-cache.ts';

const SLOTS = 4096;

function bytesOf(text: string): { buf: SliceableBuffer; view: DataView } {
  const buf = Buffer.from(text) as SliceableBuffer;
  return { buf, view: new DataView(buf.buffer, buf.byteOffset, buf.length) };
}

/** The keys of a message array: they differ only in the index, in the middle of the key. */
const indexedKeys = (n: number) => Array.from({ length: n }, (_, i) => `gen_ai.prompt.${i}.content`);

describe('hashBytes', () => {
  it('spreads keys that differ in one middle byte over the cache slots', () => {
    const keys = [...indexedKeys(10), ...Array.from({ length: 10 }, (_, i) => `gen_ai.completion.${i}.role`)];
    const slots = new Set(keys.map((k) => {
      const { buf, view } = bytesOf(k);
      return hashBytes(buf, view, 0, buf.length) & (SLOTS - 1);
    }));
    // 20 keys in 4096 slots: a collision or two is chance, a shared slot for all of them is a blind spot.
    expect(slots.size).toBeGreaterThanOrEqual(18);
  });

  it('depends on the bytes in range only, wherever they sit in the buffer', () => {
    const { buf, view } = bytesOf('xxgen_ai.prompt.3.contentyy');
    const alone = bytesOf('gen_ai.prompt.3.content');
    expect(hashBytes(buf, view, 2, buf.length - 4)).toBe(hashBytes(alone.buf, alone.view, 0, alone.buf.length));
  });
});

describe('StringCache', () => {
  it('keeps every key of a message array once each has been seen twice', () => {
    const cache = new StringCache();
    const keys = indexedKeys(8).map(bytesOf);
    let slices = 0;
    for (const k of keys) {
      const native = k.buf.utf8Slice.bind(k.buf);
      k.buf.utf8Slice = (start: number, end: number) => {
        slices++;
        return native(start, end);
      };
    }
    // Three spans' worth of keys, in the order a span carries them.
    for (let span = 0; span < 3; span++) {
      if (span === 2) slices = 0;
      for (const k of keys) expect(cache.utf8(k.buf, k.view, 0, k.buf.length)).toBe(k.buf.toString());
    }
    expect(slices).toBe(0);
  });
});
