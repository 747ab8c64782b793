import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { MemoryStream } from '../../pipeline/stream/memory.ts';
import { makeSpan, makeSpans } from '../../test/helpers/spans.ts';
import { estimateSpanBytes } from '../../pipeline/stream/size.ts';
import { SizeOrTimeBatcher } from './batcher.ts';
import { AttributeList } from '../../model/attributes/list.ts';

const never = new AbortController().signal;

describe('batch processor', () => {
  it('sends as soon as send_batch_size spans are held', async () => {
    const stream = new MemoryStream({ maxBytes: 1 << 24, retryAfterMs: 1000 });
    const reader = stream.reader('x');
    const batcher = new SizeOrTimeBatcher({ send_batch_size: 4, timeout: 60_000, send_batch_max_size: 0, send_batch_size_mib: 0 });
    const gathering = batcher.gather(reader, never);
    await stream.append(makeSpans(3));
    await stream.append(makeSpans(3));
    const records = await gathering;
    expect(records.map((r) => r.spans.length)).toEqual([3, 3]); // a trigger, not a cap
  });

  it('sends a partial batch when the timeout passes', async () => {
    const stream = new MemoryStream({ maxBytes: 1 << 24, retryAfterMs: 1000 });
    const batcher = new SizeOrTimeBatcher({ send_batch_size: 100, timeout: 30, send_batch_max_size: 0, send_batch_size_mib: 0 });
    await stream.append(makeSpans(2));
    const records = await batcher.gather(stream.reader('x'), never);
    expect(records.map((r) => r.spans.length)).toEqual([2]);
  });

  it('with timeout 0 sends what is there at once', async () => {
    const stream = new MemoryStream({ maxBytes: 1 << 24, retryAfterMs: 1000 });
    const batcher = new SizeOrTimeBatcher({ send_batch_size: 100, timeout: 0, send_batch_max_size: 0, send_batch_size_mib: 0 });
    await stream.append(makeSpans(1));
    expect((await batcher.gather(stream.reader('x'), never)).length).toBe(1);
  });

  it('stops gathering when the runner stops, and leaves no listener behind on its signal per gathering', async () => {
    const stream = new MemoryStream({ maxBytes: 1 << 24, retryAfterMs: 1000 });
    const reader = stream.reader('x');
    const batcher = new SizeOrTimeBatcher({ send_batch_size: 4, timeout: 60_000, send_batch_max_size: 0, send_batch_size_mib: 0 });
    const stopping = new AbortController();
    const full = batcher.gather(reader, stopping.signal);
    await stream.append(makeSpans(2));
    await stream.append(makeSpans(2));
    expect((await full).map((r) => r.spans.length)).toEqual([2, 2]);
    // The stream's own watch of the signal (added once) may stay; nothing per gathering does.
    const listeners = getEventListeners(stopping.signal, 'abort').length;
    expect(listeners).toBeLessThanOrEqual(1);
    const again = batcher.gather(reader, stopping.signal);
    await stream.append(makeSpans(4));
    expect((await again).map((r) => r.spans.length)).toEqual([4]);
    expect(getEventListeners(stopping.signal, 'abort').length).toBe(listeners);
    const partial = batcher.gather(reader, stopping.signal);
    await stream.append(makeSpans(1));
    await new Promise((resolve) => setTimeout(resolve, 5));
    stopping.abort();
    expect((await partial).map((r) => r.spans.length)).toEqual([1]);
  });

  it('splits deliveries larger than send_batch_max_size', () => {
    const batcher = new SizeOrTimeBatcher({ send_batch_size: 2, timeout: 0, send_batch_max_size: 3, send_batch_size_mib: 0 });
    expect(batcher.split(makeSpans(7)).map((p) => p.length)).toEqual([3, 3, 1]);
    expect(batcher.split(makeSpans(3)).map((p) => p.length)).toEqual([3]);
  });

  it('sends once about send_batch_size_mib of span memory is held, before send_batch_size spans', async () => {
    const stream = new MemoryStream({ maxBytes: 1 << 28, retryAfterMs: 1000 });
    const reader = stream.reader('x');
    const batcher = new SizeOrTimeBatcher({ send_batch_size: 1000, timeout: 60_000, send_batch_max_size: 0, send_batch_size_mib: 1 });
    // Spans of ~100 KB by the stream's estimate (a long conversation text each).
    const big = () => Array.from({ length: 2 }, () => makeSpan({ attributes: new AttributeList([['ag.data.inputs.prompt', 'x'.repeat(50_000)]]) }));
    const perSpan = estimateSpanBytes(big()[0]);
    expect(perSpan).toBeGreaterThan(100_000);
    expect(batcher.deliverySpans).toBe(1000);
    const first = batcher.gather(reader, never);
    for (let i = 0; i < 6; i++) await stream.append(big());
    // 1 MiB is ~10 such spans: the first delivery stops at five records, long before 1000 spans or the timeout.
    const records = await first;
    const trigger = Math.floor((1024 * 1024) / perSpan);
    expect(batcher.deliverySpans).toBe(trigger);
    expect(records.map((r) => r.spans.length).reduce((a, b) => a + b)).toBe(2 * Math.ceil(trigger / 2));
  });

  it('keeps send_batch_size for spans below the memory trigger, and without one', async () => {
    for (const mib of [2, 0]) {
      const stream = new MemoryStream({ maxBytes: 1 << 24, retryAfterMs: 1000 });
      const batcher = new SizeOrTimeBatcher({ send_batch_size: 8, timeout: 60_000, send_batch_max_size: 0, send_batch_size_mib: mib });
      const gathering = batcher.gather(stream.reader('x'), never);
      for (let i = 0; i < 4; i++) await stream.append(makeSpans(2));
      expect((await gathering).map((r) => r.spans.length)).toEqual([2, 2, 2, 2]);
      expect(batcher.deliverySpans).toBe(8);
    }
  });
});
