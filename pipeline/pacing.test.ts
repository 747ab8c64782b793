import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeSpans } from '../test/helpers/spans.ts';
import type { Batcher, Exporter } from './component.ts';
import { DeadLetterFile } from './deadletter.ts';
import { RetryableError } from './errors.ts';
import { silentLogger } from './log.ts';
import { IntakePacer } from './pacing.ts';
import { ExportRunner, SerialExporter } from './runner.ts';
import { MemoryStream } from './stream/memory.ts';

/** Deliveries of up to 10 spans. */
const tens: Batcher = { sync: false, deliverySpans: 10, gather: (r, s) => r.read(10, s), split: (spans) => [spans] };

/** An exporter whose calls finish only when the test lets them (or that fails while `failing` is set). */
class GatedExporter implements Exporter {
  delivered = 0;
  failing = false;
  private opened: Array<() => void> = [];
  async start() {}
  async shutdown() {}
  async export(spans: { length: number }) {
    if (this.failing) throw new RetryableError('down');
    await new Promise<void>((resolve) => this.opened.push(resolve));
    this.delivered += spans.length;
  }
  /** Lets every waiting call finish. */
  release(): void {
    for (const open of this.opened.splice(0)) open();
  }
}

async function setup(stallMs = 60_000) {
  const exporter = new GatedExporter();
  const stream = new MemoryStream({ maxBytes: 1 << 24, retryAfterMs: 1000 });
  const dir = await mkdtemp(join(tmpdir(), 'tracehop-pacing-'));
  const runner = new ExportRunner({
    exporterId: 'gated', pipelineId: 'traces', stream, batcher: tens,
    exporter: new SerialExporter(exporter), retry: { initial_interval: 60_000, max_interval: 60_000, multiplier: 1 },
    maxAttempts: 3, deadLetters: new DeadLetterFile(join(dir, 'dead.jsonl'), 'gated'), logger: silentLogger,
  });
  runner.start();
  const pacer = new IntakePacer([runner], { deliveries: 2, stallMs });
  return { exporter, stream, runner, pacer };
}

async function appendSpans(stream: MemoryStream, records: number) {
  for (let i = 0; i < records; i++) await stream.append(makeSpans(10));
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('intake pacing', () => {
  it('does not hold requests while the exporter is at most the allowed deliveries behind', async () => {
    const { stream, pacer, runner } = await setup();
    await appendSpans(stream, 2);
    expect(pacer.wait()).toBeUndefined();
    runner.abort();
  });

  it('holds requests while a working exporter is further behind, and lets them go once it caught up', async () => {
    const { exporter, stream, pacer, runner } = await setup();
    await appendSpans(stream, 4);
    await tick();
    let released = false;
    const waiting = pacer.wait();
    expect(waiting).toBeDefined();
    void waiting!.then(() => { released = true; });
    await tick();
    expect(released).toBe(false);
    // One delivery done: 30 spans still behind, over the 2 x 10 allowed, so the request keeps waiting.
    exporter.release();
    await tick();
    expect(released).toBe(false);
    // A second one: 20 behind, which is allowed.
    exporter.release();
    await waiting;
    expect(exporter.delivered).toBe(20);
    runner.abort();
    exporter.release();
  });

  it('does not hold requests for a failing exporter: the stream buffers for it', async () => {
    const { exporter, stream, pacer, runner } = await setup();
    exporter.failing = true;
    await appendSpans(stream, 5);
    await tick();
    expect(pacer.wait()).toBeUndefined();
    expect(stream.stats().spans).toBe(50);
    runner.abort();
  });

  it('holds requests for a silent exporter only for the stall time, then not until it commits again', async () => {
    const { exporter, stream, pacer, runner } = await setup(30);
    await appendSpans(stream, 5);
    await tick();
    const waiting = pacer.wait();
    expect(waiting).toBeDefined();
    await waiting;
    // Stalled: later requests go straight on, the stream buffering them.
    expect(pacer.wait()).toBeUndefined();
    await appendSpans(stream, 3);
    expect(pacer.wait()).toBeUndefined();
    // A commit ends the stall: far behind still, so requests wait again.
    exporter.release();
    await tick();
    expect(exporter.delivered).toBe(10);
    expect(pacer.wait()).toBeDefined();
    runner.abort();
    exporter.release();
  });

  it('lets every waiting request go when the runner stops', async () => {
    const { exporter, stream, pacer, runner } = await setup();
    await appendSpans(stream, 5);
    await tick();
    const waiting = [pacer.wait(), pacer.wait()];
    expect(waiting.every((w) => w !== undefined)).toBe(true);
    runner.abort();
    exporter.release();
    await Promise.all(waiting);
    expect(pacer.wait()).toBeUndefined();
  });
});
