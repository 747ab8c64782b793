// Keeps the store inside its bounds (read-api.md §9.3): whole traces go, least recently written first,
// when the live pages pass `max_bytes` (down to 90% of it) or when their last write is older than
// `max_age`. Write time, not span time, decides, so back-filled old spans stay.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Logger } from '../../pipeline/log.ts';

/** Pruning for size stops at this share of `max_bytes`, so the next batches do not prune again at once. */
const SIZE_TARGET = 0.9;

interface TraceKey {
  project: string;
  trace_id: string;
  bytes: number;
}

export interface PruneOutcome {
  traces: number;
  /** Live bytes of the file before minus after. */
  bytes: number;
}

export class Pruner {
  readonly #db: DatabaseSync;
  readonly #maxBytes: number;
  readonly #logger: Logger;
  readonly #pageCount: StatementSync;
  readonly #freelist: StatementSync;
  readonly #pageSize: number;
  readonly #traceCount: StatementSync;
  readonly #oldest: StatementSync;
  readonly #olderThan: StatementSync;
  readonly #deleteSpans: StatementSync;
  readonly #deleteTrace: StatementSync;

  constructor(db: DatabaseSync, maxBytes: number, logger: Logger) {
    this.#db = db;
    this.#maxBytes = maxBytes;
    this.#logger = logger;
    this.#pageCount = db.prepare('PRAGMA page_count');
    this.#freelist = db.prepare('PRAGMA freelist_count');
    this.#pageSize = Number(db.prepare('PRAGMA page_size').get()!.page_size);
    this.#traceCount = db.prepare('SELECT count(*) AS n FROM traces');
    this.#oldest = db.prepare('SELECT project, trace_id, bytes FROM traces ORDER BY last_write, trace_id');
    this.#olderThan = db.prepare('SELECT project, trace_id, bytes FROM traces WHERE last_write < ? ORDER BY last_write, trace_id');
    this.#deleteSpans = db.prepare('DELETE FROM spans WHERE project = ? AND trace_id = ?');
    this.#deleteTrace = db.prepare('DELETE FROM traces WHERE project = ? AND trace_id = ?');
  }

  /** Bytes of the main file's pages in use: page_count - freelist_count, times the page size. */
  private usedBytes(): number {
    const pages = Number(this.#pageCount.get()!.page_count);
    const free = Number(this.#freelist.get()!.freelist_count);
    return (pages - free) * this.#pageSize;
  }

  /** After a commit: while over `max_bytes`, deletes the least recently written traces (never the last one). */
  pruneForSize(): PruneOutcome {
    const before = this.usedBytes();
    if (before <= this.#maxBytes) return { traces: 0, bytes: 0 };
    const target = this.#maxBytes * SIZE_TARGET;
    let size = before;
    let removed = 0;
    while (size > target) {
      const left = Number(this.#traceCount.get()!.n);
      if (left <= 1) break;
      // The record bytes guess what a trace frees; the loop measures again and goes on if it was short.
      const excess = size - target;
      const victims: TraceKey[] = [];
      let freed = 0;
      for (const row of this.#oldest.iterate() as Iterable<TraceKey>) {
        if (victims.length >= left - 1 || freed >= excess) break;
        victims.push({ project: row.project, trace_id: row.trace_id, bytes: Number(row.bytes) });
        freed += Number(row.bytes);
      }
      this.#delete(victims);
      removed += victims.length;
      size = this.usedBytes();
    }
    return this.#finish('size', removed, before);
  }

  /** Deletes the traces last written before `nowMs - maxAgeMs`. */
  pruneForAge(nowMs: number, maxAgeMs: number): PruneOutcome {
    const victims = (this.#olderThan.all(nowMs - maxAgeMs) as unknown as TraceKey[]).map((r) => ({ ...r }));
    if (victims.length === 0) return { traces: 0, bytes: 0 };
    const before = this.usedBytes();
    this.#delete(victims);
    return this.#finish('age', victims.length, before);
  }

  #delete(victims: TraceKey[]): void {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      for (const v of victims) {
        this.#deleteSpans.run(v.project, v.trace_id);
        this.#deleteTrace.run(v.project, v.trace_id);
      }
      this.#db.exec('COMMIT');
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  /**
   * Gives the free pages back to the file system and checkpoints the WAL, then logs one line. PASSIVE:
   * a read in progress keeps its snapshot, and the writer never waits for it.
   */
  #finish(reason: 'size' | 'age', traces: number, before: number): PruneOutcome {
    const bytes = before - this.usedBytes();
    if (traces > 0) {
      this.#db.exec('PRAGMA incremental_vacuum');
      this.#db.exec('PRAGMA wal_checkpoint(PASSIVE)');
      this.#logger.info('store pruned', { reason, traces, bytes });
    }
    return { traces, bytes };
  }
}
