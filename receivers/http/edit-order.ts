// The order of the PATCHes of one trace (read-api.md §8.3). An edit reaches the store only when the ingest
// stream delivers it, so a PATCH that read the stored head while an earlier edit of the same trace was still
// on its way would undo what only that edit changed. Here the PATCHes of each trace run one at a time in
// arrival order, and each one first waits until the store holds the edit the one before appended: the store
// exporter tells its reads after each commit (TraceReads.onCommit), and the stored record of the edited span
// is compared with the record of the edit (the span as the processors left it, which is what the store writes).
// One instance per ReadRoutes; edits of another daemon are not seen (with `workers: N` one process holds the store).
//
// An edit in flight expires at its append time + the bound (`read.query_timeout`): an edit the store never
// holds (dead-lettered, overwritten by a POSTed copy in its batch, dropped) is then no longer checked on each
// commit. Every PATCH that arrived before the expiry and waits on the edit answers 503 (not only the first
// one whose wait ends: a later one starting from the stored head would lose the edit's fields silently when
// it lands); a PATCH arriving after the expiry starts from the store's head.
import type { TraceReads } from '../../exporters/store/reads.ts';

/**
 * How long an edit in flight is waited for when `read.query_timeout` is 0 (no bound on queries): a query
 * without bound ends when its statement does, while an edit the store never holds would hold every later
 * PATCH of its trace forever. Far above one delivery (the `batch` processor's timeout plus a commit).
 */
export const UNBOUNDED_EDIT_WAIT_MS = 60_000;

interface InFlight {
  project: string;
  traceId: string;
  spanId: string;
  record: string;
  /** Epoch ms past which the edit is no longer waited for. */
  expiresMs: number;
  /** False once expired: kept as a mark, so that PATCHes that arrived before the expiry still answer 503. */
  open: boolean;
  /** True once stored, false at the expiry. */
  settled: Promise<boolean>;
  settle: (stored: boolean) => void;
  timer: NodeJS.Timeout;
}

const keyOf = (project: string, traceId: string): string => `${project}\u0000${traceId}`;

export class EditOrder {
  /** The store's reads as they are now (a reload may replace the store exporter). */
  readonly #readsOf: () => TraceReads | undefined;
  /** How long an edit in flight is waited for, from its append (ms, finite). */
  readonly boundMs: number;
  /** Per trace: the end of the last PATCH queued for it. */
  readonly #queues = new Map<string, Promise<void>>();
  /** Per trace: the last edit appended that the store does not hold yet, open or expired (forgotten once stored). */
  readonly #inFlight = new Map<string, InFlight>();
  /** The reads whose commits are watched while an edit is open. */
  #watched: TraceReads | undefined;
  #unwatch: (() => void) | undefined;

  /** `waitMs`: `read.query_timeout` in ms; 0 or Infinity: UNBOUNDED_EDIT_WAIT_MS. */
  constructor(readsOf: () => TraceReads | undefined, waitMs: number) {
    this.#readsOf = readsOf;
    this.boundMs = Number.isFinite(waitMs) && waitMs > 0 ? waitMs : UNBOUNDED_EDIT_WAIT_MS;
  }

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
   * Waits until the store holds the trace's edit in flight, if any: true once it does (or none was in
   * flight, or it expired before `receivedMs`, the PATCH's arrival), false when it expires first.
   */
  async stored(project: string, traceId: string, receivedMs: number): Promise<boolean> {
    const key = keyOf(project, traceId);
    this.#check();
    const edit = this.#inFlight.get(key);
    if (edit === undefined) return true;
    if (!edit.open) return receivedMs >= edit.expiresMs;
    return edit.settled;
  }

  /** Remembers an edit appended to the stream until the store holds it or it expires. */
  appended(project: string, traceId: string, spanId: string, record: string): void {
    const key = keyOf(project, traceId);
    const previous = this.#inFlight.get(key);
    if (previous !== undefined) this.#settle(key, previous, false);
    let settle!: (stored: boolean) => void;
    const settled = new Promise<boolean>((resolve) => (settle = resolve));
    const expiresMs = Date.now() + this.boundMs;
    const edit: InFlight = { project, traceId, spanId, record, expiresMs, open: true, settled, settle, timer: undefined! };
    edit.timer = setTimeout(() => this.#expire(edit), this.boundMs);
    edit.timer.unref();
    this.#inFlight.set(key, edit);
    this.#watchCurrent();
  }

  #expire(edit: InFlight): void {
    if (!edit.open) return;
    edit.open = false;
    edit.settle(false);
    this.#unwatchIfIdle();
  }

  #settle(key: string, edit: InFlight, stored: boolean): void {
    clearTimeout(edit.timer);
    edit.open = false;
    if (this.#inFlight.get(key) === edit) this.#inFlight.delete(key);
    edit.settle(stored);
  }

  /** Watches the commits of the store as it is now; a store replaced by a reload is let go. */
  #watchCurrent(): TraceReads | undefined {
    const reads = this.#readsOf();
    if (this.#watched === reads) return reads;
    this.#unwatch?.();
    this.#watched = reads;
    // Called after each commit, and when the store shuts down (then the current store is looked up again).
    this.#unwatch = reads?.onCommit(() => this.#check());
    return reads;
  }

  /** After a commit, a shutdown or before a wait: stored edits are settled and forgotten, stale marks dropped. */
  #check(): void {
    const now = Date.now();
    let open = false;
    for (const [key, edit] of this.#inFlight) {
      // A mark outlives its expiry by one bound: the PATCHes that arrived before it have answered by then.
      if (!edit.open && now >= edit.expiresMs + this.boundMs) this.#inFlight.delete(key);
      if (edit.open) open = true;
    }
    if (!open) return this.#unwatchIfIdle();
    const reads = this.#watchCurrent();
    if (reads === undefined) return;
    for (const [key, edit] of this.#inFlight) {
      if (!edit.open) continue;
      let record: string | undefined;
      try {
        record = reads.spanRecord(edit.project, edit.traceId, edit.spanId);
      } catch {
        return; // A store being closed: its shutdown, the next commit or the expiry settles it.
      }
      if (record === edit.record) this.#settle(key, edit, true);
    }
    this.#unwatchIfIdle();
  }

  /** Nothing open to wait for: stop listening, so that the store holds no reference to a replaced receiver. */
  #unwatchIfIdle(): void {
    for (const edit of this.#inFlight.values()) if (edit.open) return;
    this.#unwatch?.();
    this.#unwatch = undefined;
    this.#watched = undefined;
  }
}
