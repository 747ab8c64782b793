// The primary's end of `tracehop tap` with several workers: one `GET /tap` is one subscription here,
// sent to every worker that runs (and to a worker that starts while it lasts); each worker sends the
// matching spans' lines (worker-taps.ts) and they are written to the watcher's answer as they come.
// Lines of different workers interleave, line by line, as the workers' `stdout` exporter lines do;
// within one worker they keep their order.
//
// A watcher that does not keep up is held back at the workers, not here: each `tapped` message is
// acknowledged to its worker (`drained`) once the watcher's answer has taken it without going over its
// buffer, or else when the answer drains. A worker stops encoding once enough of its lines wait
// unacknowledged, counts the spans it leaves out and sends the `missed` line itself (pipeline/tap.ts),
// so the primary only writes text and sends acknowledgements: it neither parses nor counts spans, and
// a paused watcher costs it nothing once the workers have stopped (at most
// workers x their high-water mark of lines buffered in the answer meanwhile).
import type { TapFilter, TapPoint, TapSink } from '../../pipeline/tap.ts';
import type { ToWorker } from './messages.ts';

/** Sends to the one worker a `tapped` message came from (nothing once that worker has gone). */
export type Reply = (message: ToWorker) => void;

interface Watcher {
  pipeline: string;
  point: TapPoint;
  filter: TapFilter;
  sink: TapSink;
  /** While the answer is over its buffer: the bytes to acknowledge to each worker once it drains. */
  unacknowledged: Map<Reply, number> | undefined;
}

export class ClusterTaps {
  readonly #pipelines: () => string[];
  /** Sends to every worker that has started (and can hear a tap). */
  readonly #broadcast: (message: ToWorker) => void;
  readonly #watchers = new Map<number, Watcher>();
  #nextId = 1;

  /** `pipelines`: the running config's pipeline ids (the workers run the same config). */
  constructor(pipelines: () => string[], broadcast: (message: ToWorker) => void) {
    this.#pipelines = pipelines;
    this.#broadcast = broadcast;
  }

  pipelines(): string[] {
    return this.#pipelines();
  }

  subscribe(pipeline: string, point: TapPoint, filter: TapFilter, sink: TapSink): () => void {
    const tap = this.#nextId++;
    this.#watchers.set(tap, { pipeline, point, filter, sink, unacknowledged: undefined });
    this.#broadcast(this.#ask(tap)!);
    return () => {
      if (!this.#watchers.delete(tap)) return;
      this.#broadcast({ tracehop: 'untap', tap });
    };
  }

  /** What a worker that has just started is sent: every tap being watched. */
  asks(): ToWorker[] {
    return [...this.#watchers.keys()].map((tap) => this.#ask(tap)!);
  }

  /**
   * Lines from a worker for `tap` (dropped when its watcher has gone meanwhile: that worker has been
   * told `untap`). `bytes` are acknowledged through `reply` once the watcher's answer has room.
   */
  tapped(tap: number, text: string, bytes: number, reply: Reply): void {
    const w = this.#watchers.get(tap);
    if (w === undefined) return;
    const full = !w.sink.write(text);
    if (w.unacknowledged === undefined && !full) {
      reply({ tracehop: 'drained', tap, bytes });
      return;
    }
    if (w.unacknowledged === undefined) {
      const unacknowledged = (w.unacknowledged = new Map());
      w.sink.once('drain', () => {
        w.unacknowledged = undefined;
        for (const [to, n] of unacknowledged) to({ tracehop: 'drained', tap, bytes: n });
      });
    }
    w.unacknowledged.set(reply, (w.unacknowledged.get(reply) ?? 0) + bytes);
  }

  #ask(tap: number): ToWorker | undefined {
    const w = this.#watchers.get(tap);
    return w && { tracehop: 'tap', tap, pipeline: w.pipeline, point: w.point, filter: w.filter };
  }
}
