import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { makeSpans } from '../../test/helpers/spans.ts';
import { RefusedError } from '../errors.ts';
import { MemoryStream } from './memory.ts';
import { estimateFromWire, estimateSpanBytes } from './size.ts';

describe('memory stream', () => {
  it('hands every record to each reader independently and releases what all readers committed', async () => {
    const stream = new MemoryStream({ maxBytes: 1 << 20, retryAfterMs: 1000 });
    const a = stream.reader('a');
    const b = stream.reader('b');
    await stream.append(makeSpans(2));
    await stream.append(makeSpans(3));
    const readA = await a.read(100);
    expect(readA.map((r) => [r.seq, r.spans.length])).toEqual([[1, 2], [2, 3]]);
    await a.commit(2);
    expect(stream.stats().records).toBe(2); // b has not committed
    expect(a.lag()).toBe(0);
    expect(b.lag()).toBe(5);
    const readB = await b.read(2);
    expect(readB.map((r) => r.seq)).toEqual([1]); // whole records, about maxSpans
    await b.commit(1);
    expect(stream.stats()).toMatchObject({ records: 1, spans: 3 });
  });

  it('makes a reader wait for the next append', async () => {
    const stream = new MemoryStream({ maxBytes: 1 << 20, retryAfterMs: 1000 });
    const reader = stream.reader('a');
    const pending = reader.read(10);
    await stream.append(makeSpans(1));
    expect((await pending).map((r) => r.seq)).toEqual([1]);
  });

  it('refuses when full, with nothing appended, and takes records again once space frees', async () => {
    const stream = new MemoryStream({ maxBytes: 4000, retryAfterMs: 2000 });
    const reader = stream.reader('a');
    await stream.append(makeSpans(5));
    const err = await stream.append(makeSpans(5)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RefusedError);
    expect((err as RefusedError).retryAfterMs).toBe(2000);
    expect(stream.stats().records).toBe(1);
    // Under the bound, but a request of that size was just refused: refused before decoding until space frees.
    expect(stream.stats().bytes).toBeLessThan(4000);
    expect(stream.refusal()?.message).toMatch(/^ingest stream full/);
    const [record] = await reader.read(100);
    await reader.commit(record.seq);
    expect(stream.refusal()).toBeUndefined();
    await stream.append(makeSpans(5));
    expect(stream.stats().records).toBe(1);
  });

  it('counts a record by its body bytes when the receiver gives them, else by walking its spans', async () => {
    const stream = new MemoryStream({ maxBytes: 1 << 20, retryAfterMs: 1000 });
    const spans = makeSpans(3);
    await stream.append(spans, 10_000);
    expect(stream.stats().bytes).toBe(estimateFromWire(3, 10_000));
    await stream.append(spans);
    expect(stream.stats().bytes).toBe(estimateFromWire(3, 10_000) + spans.reduce((n, s) => n + estimateSpanBytes(s), 0));
    // The bound holds on body bytes too: a body larger than what is left is refused.
    const err = await stream.append(makeSpans(1), 1 << 20).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RefusedError);
    expect(stream.stats().records).toBe(2);
  });

  it('refusal(): none below the bound; at it, the refusal every append would get; after seal, shutting down', async () => {
    const stream = new MemoryStream({ maxBytes: 4000, retryAfterMs: 2000 });
    const reader = stream.reader('a');
    expect(stream.refusal()).toBeUndefined();
    await stream.append(makeSpans(1));
    expect(stream.refusal()).toBeUndefined();
    // One record past the bound is taken when the stream is empty; then the stream is at its bound.
    await reader.commit((await reader.read(10))[0].seq);
    await stream.append(makeSpans(20));
    expect(stream.refusal()).toEqual({ message: expect.stringMatching(/^ingest stream full/), retryAfterMs: 2000 });
    await expect(stream.append(makeSpans(1))).rejects.toBeInstanceOf(RefusedError);
    await reader.commit((await reader.read(100))[0].seq);
    expect(stream.refusal()).toBeUndefined();
    stream.seal();
    expect(stream.refusal()?.message).toBe('ingest stream is shutting down');
  });

  it('after seal: refuses appends, drains what it holds, then reads end', async () => {
    const stream = new MemoryStream({ maxBytes: 1 << 20, retryAfterMs: 1000 });
    const reader = stream.reader('a');
    await stream.append(makeSpans(1));
    stream.seal();
    await expect(stream.append(makeSpans(1))).rejects.toBeInstanceOf(RefusedError);
    expect((await reader.read(10)).length).toBe(1);
    expect(await reader.read(10)).toEqual([]);
  });

  it('ends a waiting read when its signal aborts', async () => {
    const stream = new MemoryStream({ maxBytes: 1 << 20, retryAfterMs: 1000 });
    const controller = new AbortController();
    const pending = stream.reader('a').read(10, controller.signal);
    controller.abort();
    expect(await pending).toEqual([]);
  });

  it('watches a signal once however many reads wait on it; its abort ends only the reads it was given', async () => {
    const stream = new MemoryStream({ maxBytes: 1 << 20, retryAfterMs: 1000 });
    const controller = new AbortController();
    const other = new AbortController();
    const a = stream.reader('a');
    const b = stream.reader('b');
    // Reader a waits, is handed a record, and waits again with the same signal; b waits with another.
    const first = a.read(10, controller.signal);
    await stream.append(makeSpans(1));
    expect((await first).length).toBe(1);
    const second = a.read(10, controller.signal);
    const waitingB = b.read(10, other.signal);
    await Promise.resolve();
    expect(getEventListeners(controller.signal, 'abort').length).toBe(1);
    // b already holds the first record to read: drain it so that it truly waits.
    expect((await waitingB).length).toBe(1);
    const thirdB = b.read(10, other.signal);
    controller.abort();
    expect(await second).toEqual([]);
    // b was woken by a's abort for nothing: it waits on, and gets the next append.
    await stream.append(makeSpans(2));
    expect((await thirdB).map((r) => r.spans.length)).toEqual([2]);
  });
});
