// The primary's merge of the workers' tap lines (cmd/workers/cluster-taps.ts) with a watcher whose
// buffer is full: lines are counted, not written, and the watcher is told how many spans it missed,
// the workers' own missed counts included. The workers are the messages they would send.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ClusterTaps } from '../../cmd/workers/cluster-taps.ts';
import type { ToWorker } from '../../cmd/workers/messages.ts';

/** A watcher's answer whose buffer is full while `full` is true. */
class Sink extends EventEmitter {
  written: string[] = [];
  full = false;
  write(text: string): boolean {
    this.written.push(text);
    return !this.full;
  }
}

describe('the primary merging tap lines', () => {
  it('asks every worker, counts what a full watcher misses and says so on drain, and asks to stop', () => {
    const sent: ToWorker[] = [];
    const taps = new ClusterTaps(() => ['traces'], (m) => sent.push(m));
    const sink = new Sink();
    const unsubscribe = taps.subscribe('traces', 'received', { name: 'op' }, sink);
    expect(sent).toEqual([{ tracehop: 'tap', tap: 1, pipeline: 'traces', point: 'received', filter: { name: 'op' } }]);
    expect(taps.asks()).toEqual(sent);

    taps.tapped(1, '{"span_id":"a"}\n');
    sink.full = true;
    taps.tapped(1, '{"span_id":"b"}\n');
    // Full now: these are counted (two spans, and the seven a worker itself could not send).
    taps.tapped(1, '{"span_id":"c"}\n{"span_id":"d"}\n');
    taps.tapped(1, '{"tap":"missed","spans":7}\n');
    sink.full = false;
    sink.emit('drain');
    expect(sink.written).toEqual(['{"span_id":"a"}\n', '{"span_id":"b"}\n', '{"tap":"missed","spans":9}\n']);

    unsubscribe();
    expect(sent.at(-1)).toEqual({ tracehop: 'untap', tap: 1 });
    expect(taps.asks()).toEqual([]);
    // Lines still on their way from a worker after the watcher left go nowhere.
    taps.tapped(1, '{"span_id":"e"}\n');
    expect(sink.written).toHaveLength(3);
  });
});
