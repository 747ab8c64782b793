import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { makeSpans } from '../test/helpers/spans.ts';
import type { Batcher, Exporter } from './component.ts';
import { DeadLetterFile } from './deadletter.ts';
import { PermanentError, RetryableError } from './errors.ts';
import { silentLogger } from './log.ts';
import { ExportRunner, ExporterGate } from './runner.ts';
import type { Span } from '../model/span.ts';
import { MemoryStream } from './stream/memory.ts';

const sendAll: Batcher = { sync: false, deliverySpans: 1000, gather: (r, s) => r.read(1000, s), split: (spans) => [spans] };

/** An exporter that fails as scripted, then records what it got. */
class ScriptedExporter implements Exporter {
  readonly received: Span[][] = [];
  calls = 0;
  private readonly failures: Array<(spans: Span[]) => Error>;
  constructor(failures: Array<(spans: Span[]) => Error> = []) {
    this.failures = failures;
  }
  async start() {}
  async shutdown() {}
  async export(spans: Span[]) {
    this.calls++;
    const fail = this.failures.shift();
    if (fail) throw fail(spans);
    this.received.push(spans);
  }
}

async function setup(exporter: Exporter) {
  const dir = await mkdtemp(join(tmpdir(), 'tracehop-runner-'));
  const stream = new MemoryStream({ maxBytes: 1 << 24, retryAfterMs: 1000 });
  const deadLetters = new DeadLetterFile(join(dir, 'dead.jsonl'), 'scripted');
  const runner = new ExportRunner({
    exporterId: 'scripted', pipelineId: 'traces', stream, batcher: sendAll,
    exporter: new ExporterGate(exporter), retry: { initial_interval: 5, max_interval: 20, multiplier: 2 },
    maxAttempts: 3, deadLetters, logger: silentLogger,
  });
  runner.start();
  return { stream, runner, deadLetters };
}

describe('export runner', () => {
  it('hands the spans of several gathered records to the exporter as one batch, in order', async () => {
    const exporter = new ScriptedExporter();
    const stream = new MemoryStream({ maxBytes: 1 << 24, retryAfterMs: 1000 });
    const dir = await mkdtemp(join(tmpdir(), 'tracehop-runner-'));
    const first = makeSpans(2);
    const second = makeSpans(3);
    await stream.append(first);
    await stream.append(second);
    stream.seal();
    const runner = new ExportRunner({
      exporterId: 'scripted', pipelineId: 'traces', stream, batcher: sendAll,
      exporter: new ExporterGate(exporter), retry: { initial_interval: 5, max_interval: 20, multiplier: 2 },
      maxAttempts: 3, deadLetters: new DeadLetterFile(join(dir, 'dead.jsonl'), 'scripted'), logger: silentLogger,
    });
    runner.start();
    await runner.drained();
    expect(exporter.received.length).toBe(1);
    expect(exporter.received[0]).toEqual([...first, ...second]);
    expect(exporter.received[0][4]).toBe(second[2]);
  });

  it('retries retryable failures and commits only after delivery', async () => {
    const exporter = new ScriptedExporter([() => new RetryableError('broker down'), () => new RetryableError('still down', 10)]);
    const { stream, runner } = await setup(exporter);
    await stream.append(makeSpans(3));
    stream.seal();
    await runner.drained();
    expect(exporter.calls).toBe(3);
    expect(exporter.received.map((b) => b.length)).toEqual([3]);
    expect(stream.stats().records).toBe(0);
    expect(runner.delivered).toBe(3);
  });

  it('dead-letters permanent failures with the reason and moves on', async () => {
    const exporter = new ScriptedExporter([() => new PermanentError('400 Bad Request: no')]);
    const { stream, runner, deadLetters } = await setup(exporter);
    const spans = makeSpans(2);
    await stream.append(spans);
    await stream.append(makeSpans(1));
    stream.seal();
    await runner.drained();
    const lines = (await readFile(deadLetters.path, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.reason, l.exporter, l.span.span_id])).toEqual([
      ['400 Bad Request: no', 'scripted', spans[0].spanId],
      ['400 Bad Request: no', 'scripted', spans[1].spanId],
    ]);
    expect(typeof lines[0].at).toBe('string');
    expect(exporter.received.map((b) => b.length)).toEqual([1]);
  });

  it('dead-letters only the spans a PermanentError names', async () => {
    const exporter = new ScriptedExporter([(spans) => new PermanentError('too large', { spans: [spans[1]] })]);
    const { stream, runner, deadLetters } = await setup(exporter);
    await stream.append(makeSpans(3));
    stream.seal();
    await runner.drained();
    expect(deadLetters.count).toBe(1);
    expect(runner.delivered).toBe(2);
  });

  it('dead-letters a batch whose export keeps throwing after max attempts', async () => {
    const boom = () => new TypeError('exporter bug');
    const exporter = new ScriptedExporter([boom, boom, boom]);
    const { stream, runner, deadLetters } = await setup(exporter);
    await stream.append(makeSpans(1));
    stream.seal();
    await runner.drained();
    expect(exporter.calls).toBe(3);
    expect(deadLetters.count).toBe(1);
    expect(runner.deadLettered).toBe(1);
  });
});

/** An exporter whose export calls wait until the test settles them, and that takes `deliveriesInFlight` at once. */
class HeldExporter implements Exporter {
  readonly deliveriesInFlight: number | undefined;
  readonly calls: Array<{ spans: Span[]; settle(error?: Error): void }> = [];
  underWay = 0;
  mostUnderWay = 0;
  constructor(deliveriesInFlight?: number) {
    this.deliveriesInFlight = deliveriesInFlight;
  }
  async start() {}
  async shutdown() {}
  export(spans: Span[]): Promise<void> {
    this.underWay++;
    this.mostUnderWay = Math.max(this.mostUnderWay, this.underWay);
    return new Promise((resolve, reject) => {
      this.calls.push({
        spans,
        settle: (error) => {
          this.underWay--;
          if (error) reject(error);
          else resolve();
        },
      });
    });
  }
}

/** One stream record per delivery. */
const recordByRecord: Batcher = { sync: false, deliverySpans: 1, gather: (r, s) => r.read(1, s), split: (spans) => [spans] };

async function heldSetup(exporter: Exporter, records: number) {
  const dir = await mkdtemp(join(tmpdir(), 'tracehop-runner-'));
  const stream = new MemoryStream({ maxBytes: 1 << 24, retryAfterMs: 1000 });
  const runner = new ExportRunner({
    exporterId: 'held', pipelineId: 'traces', stream, batcher: recordByRecord,
    exporter: new ExporterGate(exporter), retry: { initial_interval: 5, max_interval: 5, multiplier: 1 },
    maxAttempts: 3, deadLetters: new DeadLetterFile(join(dir, 'dead.jsonl'), 'held'), logger: silentLogger,
  });
  const batches = Array.from({ length: records }, () => makeSpans(2));
  for (const spans of batches) await stream.append(spans);
  runner.start();
  return { stream, runner, batches };
}

describe('export runner with deliveries in flight', () => {
  it('keeps up to deliveriesInFlight deliveries under way and commits them in the order they were gathered', async () => {
    const exporter = new HeldExporter(2);
    const { stream, runner, batches } = await heldSetup(exporter, 3);
    await vi.waitFor(() => expect(exporter.calls.length).toBe(2));
    expect(exporter.calls.map((c) => c.spans)).toEqual([batches[0], batches[1]]);
    // The second delivery is done first: nothing is committed while the first is still under way.
    exporter.calls[1].settle();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stream.stats().records).toBe(3);
    expect(exporter.calls.length).toBe(2);
    exporter.calls[0].settle();
    await vi.waitFor(() => expect(exporter.calls.length).toBe(3));
    expect(stream.stats().records).toBe(1);
    exporter.calls[2].settle();
    stream.seal();
    await runner.drained();
    expect(stream.stats().records).toBe(0);
    expect(runner.delivered).toBe(6);
    expect(exporter.mostUnderWay).toBe(2);
  });

  it('commits nothing past a delivery that is being retried until it was delivered', async () => {
    const exporter = new HeldExporter(2);
    const { stream, runner, batches } = await heldSetup(exporter, 2);
    await vi.waitFor(() => expect(exporter.calls.length).toBe(2));
    exporter.calls[0].settle(new RetryableError('broker down'));
    exporter.calls[1].settle();
    await vi.waitFor(() => expect(exporter.calls.length).toBe(3));
    expect(exporter.calls[2].spans).toBe(batches[0]);
    expect(stream.stats().records).toBe(2);
    exporter.calls[2].settle();
    stream.seal();
    await runner.drained();
    expect(stream.stats().records).toBe(0);
    expect(runner.delivered).toBe(4);
  });

  it('makes one export call at a time for an exporter that does not say it takes more', async () => {
    const exporter = new HeldExporter();
    const { stream, runner } = await heldSetup(exporter, 3);
    for (let i = 0; i < 3; i++) {
      await vi.waitFor(() => expect(exporter.calls.length).toBe(i + 1));
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(exporter.calls.length).toBe(i + 1);
      exporter.calls[i].settle();
    }
    stream.seal();
    await runner.drained();
    expect(exporter.mostUnderWay).toBe(1);
    expect(stream.stats().records).toBe(0);
  });

  it('shares the limit between the pipelines of one exporter and lets waiting calls through in order', async () => {
    const exporter = new HeldExporter(2);
    const gate = new ExporterGate(exporter);
    const batches = [makeSpans(1), makeSpans(1), makeSpans(1), makeSpans(1)];
    const results = batches.map((spans) => gate.export(spans));
    await vi.waitFor(() => expect(exporter.calls.length).toBe(2));
    exporter.calls[1].settle();
    await vi.waitFor(() => expect(exporter.calls.length).toBe(3));
    expect(exporter.calls[2].spans).toBe(batches[2]);
    exporter.calls[0].settle();
    await vi.waitFor(() => expect(exporter.calls.length).toBe(4));
    expect(exporter.calls[3].spans).toBe(batches[3]);
    exporter.calls[2].settle();
    exporter.calls[3].settle(new Error('refused'));
    await expect(Promise.all(results.slice(0, 3))).resolves.toBeDefined();
    await expect(results[3]).rejects.toThrow('refused');
    expect(exporter.mostUnderWay).toBe(2);
  });
});
