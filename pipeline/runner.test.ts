import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeSpans } from '../test/helpers/spans.ts';
import type { Batcher, Exporter } from './component.ts';
import { DeadLetterFile } from './deadletter.ts';
import { PermanentError, RetryableError } from './errors.ts';
import { silentLogger } from './log.ts';
import { ExportRunner, SerialExporter } from './runner.ts';
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
    exporter: new SerialExporter(exporter), retry: { initial_interval: 5, max_interval: 20, multiplier: 2 },
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
      exporter: new SerialExporter(exporter), retry: { initial_interval: 5, max_interval: 20, multiplier: 2 },
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
