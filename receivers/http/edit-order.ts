// The order of the PATCHes of one trace (read-api.md §8.3). An edit reaches the store only when the ingest
// stream delivers it, so a PATCH that read the stored head while an earlier edit of the same trace was still
// on its way would undo what only that edit changed. Here the PATCHes of each trace run one at a time in
// arrival order, and each one first waits until the store holds the edit the one before appended: the store
// exporter tells its reads after each commit (TraceReads.onCommit), and the stored record of the edited span
// is compared with the record of the edit (the span as the processors left it, which is what the store writes).
// One instance per ReadRoutes; edits of another daemon are not seen (with `workers: N` one process holds the store).
import type { TraceReads } from '../../exporters/store/reads.ts';

interface InFlight {
  project: string;
  traceId: string;
  spanId: string;
  record: string;
  whenStored: Promise<void>;
  stored: () => void;
}

const keyOf = (project: string, traceId: string): string => `${project}\u0000${traceId}`;

export class EditOrder {
  /** Per trace: the end of the last PATCH queued for it. */
  readonly #queues = new Map<string, Promise<void>>();
  /** Per trace: the last edit appended that the store does not hold yet (forgotten once it does). */
  readonly #inFlight = new Map<string, InFlight>();
  /** The reads whose commits are watched while an edit is in flight (a reload may replace the store). */
  #watched: TraceReads | undefined;
  #unwatch: (() => void) | undefined;

  /** Runs `run` once every earlier PATCH of the trace has finished. */
  inTurn<T>(project: string, traceId: string, run: () => Promise<T>): Promise<T> {
    const key = keyOf(project, traceId);
    const result = (this.#queues.get(key) ?? Promise.resolve()).then(run);
    const done = result.then(
      () => undefined,
      () => undefined,
    );
    this.#queues.set(key, done);
    void done.then(() => {
      if (this.#queues.get(key) === done) this.#queues.delete(key);
    });
    return result;
  }

  /**
   * Waits until the store holds the trace's edit in flight, if any: true once it does (or none was in flight),
   * false when `deadlineMs` (epoch ms) passes first. An edit waited for in vain is forgotten, so that the store's
   * head is where the next attempt starts (the edit may have been dropped, or overwritten in its batch).
   */
  async stored(reads: TraceReads, project: string, traceId: string, deadlineMs: number): Promise<boolean> {
    const key = keyOf(project, traceId);
    const edit = this.#inFlight.get(key);
    if (edit === undefined) return true;
    this.#watch(reads);
    this.#check();
    if (!this.#inFlight.has(key)) return true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      if (Number.isFinite(deadlineMs)) timer = setTimeout(() => resolve(false), Math.max(0, deadlineMs - Date.now()));
    });
    const inTime = await Promise.race([edit.whenStored.then(() => true as const), late]);
    clearTimeout(timer);
    if (!inTime) this.#forget(key, edit);
    return inTime;
  }

  /** Remembers an edit appended to the stream until the store holds it. */
  appended(reads: TraceReads, project: string, traceId: string, spanId: string, record: string): void {
    let stored!: () => void;
    const whenStored = new Promise<void>((resolve) => (stored = resolve));
    this.#inFlight.set(keyOf(project, traceId), { project, traceId, spanId, record, whenStored, stored });
    this.#watch(reads);
  }

  /** Edits in flight (tests: they are forgotten once stored). */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  #watch(reads: TraceReads): void {
    if (this.#watched === reads) return;
    this.#unwatch?.();
    this.#watched = reads;
    this.#unwatch = reads.onCommit(() => this.#check());
  }

  /** After a commit: the edits the store now holds are settled and forgotten. */
  #check(): void {
    const reads = this.#watched;
    if (reads === undefined) return;
    for (const [key, edit] of this.#inFlight) {
      let record: string | undefined;
      try {
        record = reads.spanRecord(edit.project, edit.traceId, edit.spanId);
      } catch {
        return; // A store being closed: the next commit or the waiter's deadline settles it.
      }
      if (record === edit.record) {
        this.#forget(key, edit);
        edit.stored();
      }
    }
  }

  #forget(key: string, edit: InFlight): void {
    if (this.#inFlight.get(key) === edit) this.#inFlight.delete(key);
    // Nothing to wait for: stop listening, so that the store holds no reference to a replaced receiver.
    if (this.#inFlight.size === 0) {
      this.#unwatch?.();
      this.#unwatch = undefined;
      this.#watched = undefined;
    }
  }
}
