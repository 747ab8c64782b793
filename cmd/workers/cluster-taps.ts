// The primary's end of `tracehop tap` with several workers: one `GET /tap` is one subscription here,
// sent to every worker that runs (and to a worker that starts while it lasts); each worker sends the
// matching spans' lines (worker-taps.ts) and they are written to the watcher's answer as they come.
// Lines of different workers interleave, line by line, as the workers' `stdout` exporter lines do;
// within one worker they keep their order. A watcher that does not keep up loses tap output, never
// data, as in one process: past its answer's buffer limit the lines are counted, not written, and it
// is told how many spans it missed once the buffer drains.
import type { TapFilter, TapPoint, TapSink } from '../../pipeline/tap.ts';
import type { ToWorker } from './messages.ts';

interface Watcher {
  pipeline: string;
  point: TapPoint;
  filter: TapFilter;
  sink: TapSink;
  missed: number;
  waiting: boolean;
}

const MISSED_PREFIX = '{"tap":"missed","spans":';

/** The spans `text` (lines from a worker) stands for: one per span line, and a worker's own `missed` counts. */
function spansIn(text: string): number {
  let spans = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    spans += line.startsWith(MISSED_PREFIX) ? (JSON.parse(line) as { spans: number }).spans : 1;
  }
  return spans;
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
    this.#watchers.set(tap, { pipeline, point, filter, sink, missed: 0, waiting: false });
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

  /** Lines from a worker for `tap` (dropped when its watcher has gone meanwhile). */
  tapped(tap: number, text: string): void {
    const w = this.#watchers.get(tap);
    if (w === undefined) return;
    if (w.waiting) {
      w.missed += spansIn(text);
      return;
    }
    if (w.sink.write(text)) return;
    w.waiting = true;
    w.sink.once('drain', () => {
      w.waiting = false;
      if (w.missed === 0) return;
      w.sink.write(`${MISSED_PREFIX}${w.missed}}\n`);
      w.missed = 0;
    });
  }

  #ask(tap: number): ToWorker | undefined {
    const w = this.#watchers.get(tap);
    return w && { tracehop: 'tap', tap, pipeline: w.pipeline, point: w.point, filter: w.filter };
  }
}
