// `tracehop tap` with several workers, in process: the primary's relay (cmd/workers/cluster-taps.ts)
// and a worker's end (cmd/workers/worker-taps.ts) with its real Taps, the IPC channel being the two
// calling each other. A watcher that does not read holds the workers back: their Taps stop encoding,
// count what they leave out and say so once the watcher drains, as in one process.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ClusterTaps, type Reply } from '../../cmd/workers/cluster-taps.ts';
import type { ToPrimary, ToWorker } from '../../cmd/workers/messages.ts';
import { WorkerTaps } from '../../cmd/workers/worker-taps.ts';
import { Taps } from '../../pipeline/tap.ts';
import { makeSpan } from '../helpers/spans.ts';

/** A watcher's answer whose buffer is full while `full` is true. */
class Sink extends EventEmitter {
  written: string[] = [];
  full = false;
  write(text: string): boolean {
    this.written.push(text);
    return !this.full;
  }
}

const tapped = (text: string) => ({ text, bytes: Buffer.byteLength(text) });

describe('the primary relaying tap lines', () => {
  it('asks every worker, acknowledges what the watcher took, holds the acknowledgements while it is full, and asks to stop', () => {
    const sent: ToWorker[] = [];
    const taps = new ClusterTaps(() => ['traces'], (m) => sent.push(m));
    const sink = new Sink();
    const unsubscribe = taps.subscribe('traces', 'received', { name: 'op' }, sink);
    expect(sent).toEqual([{ tracehop: 'tap', tap: 1, pipeline: 'traces', point: 'received', filter: { name: 'op' } }]);
    expect(taps.asks()).toEqual(sent);

    const toA: ToWorker[] = [];
    const toB: ToWorker[] = [];
    const a: Reply = (m) => toA.push(m);
    const b: Reply = (m) => toB.push(m);
    const first = tapped('{"span_id":"é"}\n');
    taps.tapped(1, first.text, first.bytes, a);
    expect(toA).toEqual([{ tracehop: 'drained', tap: 1, bytes: 17 }]);

    // Full: every line is still written (the workers stop themselves), the acknowledgements wait.
    sink.full = true;
    taps.tapped(1, '{"span_id":"b"}\n', 16, a);
    taps.tapped(1, '{"span_id":"c"}\n', 16, b);
    taps.tapped(1, '{"tap":"missed","spans":7}\n', 27, a);
    expect(toA).toHaveLength(1);
    expect(toB).toHaveLength(0);
    sink.full = false;
    sink.emit('drain');
    expect(toA.at(-1)).toEqual({ tracehop: 'drained', tap: 1, bytes: 43 });
    expect(toB).toEqual([{ tracehop: 'drained', tap: 1, bytes: 16 }]);
    expect(sink.written).toEqual([first.text, '{"span_id":"b"}\n', '{"span_id":"c"}\n', '{"tap":"missed","spans":7}\n']);

    unsubscribe();
    expect(sent.at(-1)).toEqual({ tracehop: 'untap', tap: 1 });
    expect(taps.asks()).toEqual([]);
    // Lines still on their way from a worker after the watcher left go nowhere, unacknowledged.
    taps.tapped(1, '{"span_id":"e"}\n', 16, a);
    expect(sink.written).toHaveLength(4);
    expect(toA).toHaveLength(2);
  });
});

describe('a worker whose watcher does not read', () => {
  it('stops encoding once the primary holds its acknowledgements, and tells how many spans were missed once drained', () => {
    const sink = new Sink();
    let messages = 0;
    const primary = new ClusterTaps(() => ['traces'], (m) => worker.heard(m as Extract<ToWorker, { tracehop: 'tap' }>));
    const toPrimary = (m: ToPrimary) => {
      if (m.tracehop !== 'tapped') return;
      messages++;
      primary.tapped(m.tap, m.text, m.bytes, (reply) => worker.heard(reply as Extract<ToWorker, { tracehop: 'drained' }>));
    };
    const taps = new Taps(['traces']);
    const worker = new WorkerTaps(taps, toPrimary);
    primary.subscribe('traces', 'received', {}, sink);

    taps.offer('traces', 'received', [makeSpan()]);
    expect(messages).toBe(1);
    sink.full = true;
    const offered = 2000;
    for (let i = 1; i < offered; i++) taps.offer('traces', 'received', [makeSpan()]);
    // Held back at the worker: a span is a few hundred bytes, the worker stops past 64 KiB unacknowledged.
    const sentWhileFull = messages;
    expect(sentWhileFull).toBeGreaterThan(1);
    expect(sentWhileFull).toBeLessThan(offered / 4);
    for (let i = 0; i < 100; i++) taps.offer('traces', 'received', [makeSpan()]);
    expect(messages).toBe(sentWhileFull);

    sink.full = false;
    sink.emit('drain');
    const lines = sink.written.join('').split('\n').filter((l) => l !== '');
    const missedLine = lines.at(-1)!;
    const missed = (JSON.parse(missedLine) as { tap: string; spans: number });
    expect(missed.tap).toBe('missed');
    // Every span offered is either written or counted, exactly.
    expect(lines.length - 1 + missed.spans).toBe(offered + 100);

    // Flowing again.
    taps.offer('traces', 'received', [makeSpan({ name: 'after' })]);
    expect(sink.written.at(-1)).toContain('"after"');
    worker.close();
    expect(taps.watched).toBe(false);
  });
});
