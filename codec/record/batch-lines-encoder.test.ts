import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/helpers/random.ts';
import { sampleSpan, sampleSpans } from '../../test/record/fixtures.ts';
import type { Span } from '../../model/span.ts';
import { BatchLinesEncoder } from './batch-lines-encoder.ts';
import { jsonLinesBytes } from '../../test/helpers/json-lines.ts';

// The encoder writes a batch into the buffer of an earlier one once that was given back: the bytes must
// be those of a fresh encoder whatever the buffer held before, and a buffer not given back
// must never be written again.

/** Spans of very different sizes, so that a reused buffer holds longer old text past the new end. */
function randomBatch(random: () => number, from: number): Span[] {
  const spans: Span[] = [];
  const count = 1 + Math.floor(random() * (random() < 0.2 ? 300 : 20));
  for (let i = 0; i < count; i++) {
    const long = random() < 0.1 ? 'x'.repeat(Math.floor(random() * 5000)) : 'short';
    spans.push(sampleSpan(from + i, { name: long, sessionId: random() < 0.5 ? `s-${i}` : undefined }));
  }
  return spans;
}

describe('BatchLinesEncoder', () => {
  it('gives the bytes of a fresh encoder for every batch, reused buffer or new (differential)', () => {
    const random = seededRandom(3801);
    for (const shape of ['flat', 'nested'] as const) {
      const encoder = new BatchLinesEncoder({ attributesShape: shape });
      for (let b = 0; b < 300; b++) {
        const spans = randomBatch(random, b * 1000);
        const bytes = encoder.encode(spans);
        expect(bytes.equals(jsonLinesBytes(spans, { attributesShape: shape }))).toBe(true);
        // Mostly given back at once (the file exporter's case), sometimes kept or given back late.
        if (random() < 0.8) encoder.release(bytes);
      }
    }
  });

  it('writes the next batch into the buffer given back, and never into one still in use', () => {
    const encoder = new BatchLinesEncoder();
    const first = encoder.encode(sampleSpans(20));
    const firstText = first.toString('utf8');
    const second = encoder.encode(sampleSpans(20, 100));
    expect(second.buffer === first.buffer && second.byteOffset === first.byteOffset).toBe(false);
    expect(first.toString('utf8')).toBe(firstText);
    encoder.release(first);
    const third = encoder.encode(sampleSpans(10, 200));
    expect(third.buffer).toBe(first.buffer);
    expect(third.byteOffset).toBe(first.byteOffset);
    expect(third.equals(jsonLinesBytes(sampleSpans(10, 200)))).toBe(true);
    expect(second.equals(jsonLinesBytes(sampleSpans(20, 100)))).toBe(true);
  });

  it('lets a buffer grown by a batch of huge spans go once batches are normal again', () => {
    const encoder = new BatchLinesEncoder();
    const huge = encoder.encode(Array.from({ length: 50 }, (_, i) => sampleSpan(i, { name: 'x'.repeat(100_000) })));
    expect(huge.buffer.byteLength).toBeGreaterThan(4 * 1024 * 1024);
    encoder.release(huge);
    // (Booleans, not the buffers, in expect: a failure would print megabytes.)
    let bytes = encoder.encode(sampleSpans(10, 100));
    expect(bytes.buffer === huge.buffer).toBe(false);
    expect(bytes.equals(jsonLinesBytes(sampleSpans(10, 100)))).toBe(true);
    // The first normal batch is sized from the huge one's bytes per span; a few batches on, the buffer
    // in use is of the normal batches' size, and is used again.
    for (let b = 0; b < 3; b++) {
      encoder.release(bytes);
      bytes = encoder.encode(sampleSpans(10, 200 + b * 10));
    }
    expect(bytes.buffer.byteLength).toBeLessThan(1024 * 1024);
    encoder.release(bytes);
    expect(encoder.encode(sampleSpans(10, 300)).buffer === bytes.buffer).toBe(true);
  });

  it('ignores bytes it did not hand out, and a second release of the same bytes', () => {
    const encoder = new BatchLinesEncoder();
    const foreign = Buffer.alloc(1 << 20);
    encoder.release(foreign);
    const a = encoder.encode(sampleSpans(3));
    expect(a.buffer).not.toBe(foreign.buffer);
    encoder.release(a);
    encoder.release(a);
    const b = encoder.encode(sampleSpans(3, 10));
    const c = encoder.encode(sampleSpans(3, 20));
    // Only one of them may have the given-back buffer.
    expect(b.buffer === c.buffer && b.byteOffset === c.byteOffset).toBe(false);
    expect(b.equals(jsonLinesBytes(sampleSpans(3, 10)))).toBe(true);
    expect(c.equals(jsonLinesBytes(sampleSpans(3, 20)))).toBe(true);
  });

  it('encodes no spans as empty bytes', () => {
    expect(new BatchLinesEncoder().encode([]).length).toBe(0);
  });
});
