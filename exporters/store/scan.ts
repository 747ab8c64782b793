// The rows a query reads, in the order of read-api.md §6.3, a chunk at a time. The filter runs inside
// SQLite (filter-sql.ts), where a filter that matches little would otherwise scan the whole window in one
// step, holding the event loop (the write routes' acknowledgements, the exporters) and out of reach of
// `query_timeout`. So the window is cut on `start_ns` into chunks of at least CHUNK_ROWS rows, found on
// the (project, start_ns) index alone, and the caller's pacer runs between two chunks. All chunks of a
// query read one snapshot (ReadSnapshot), as one statement would. A filter that names its trace ids skips
// all this: the primary key finds their spans directly.
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { FilterPlan } from './filter-sql.ts';
import type { StoredSpan } from './read-span.ts';
import type { Windowing } from './windowing.ts';

/** Rows of the window per chunk (all rows of the last start time included). */
const CHUNK_ROWS = 512;
const MIN_NS = -(1n << 63n);
const MAX_NS = (1n << 63n) - 1n;

/**
 * One read transaction shared by the queries running on a connection: the first to start opens it, the
 * last to finish closes it. Queries that overlap (each pauses between chunks) read the same snapshot,
 * as overlapping statements on one connection always did.
 */
export class ReadSnapshot {
  readonly db: DatabaseSync;
  #users = 0;

  constructor(db: DatabaseSync) {
    this.db = db;
  }

  async run<T>(use: () => Promise<T>): Promise<T> {
    if (this.#users++ === 0 && !this.db.isTransaction) this.db.exec('BEGIN');
    try {
      return await use();
    } finally {
      if (--this.#users === 0 && this.db.isTransaction) this.db.exec('COMMIT');
    }
  }
}

export interface Scan {
  project: string;
  window: Windowing;
  plan: FilterPlan;
  /** The SELECT list. */
  columns: string;
  /** Called between two chunks: gives the event loop a turn, throws past the deadline. */
  pause: () => Promise<void>;
}

/** Rows matching the plan's SQL part in window order; the bounds are inclusive here (inWindow() decides at them). */
export async function* scanRows(db: DatabaseSync, scan: Scan): AsyncGenerator<StoredSpan> {
  const { window: w, plan, project } = scan;
  const descending = w.order === 'descending';
  const d = descending ? 'DESC' : 'ASC';
  // The far end of the next chunk: the start time of its CHUNK_ROWS-th row, from the index only.
  const edge: StatementSync = db.prepare(
    `SELECT start_ns FROM spans INDEXED BY spans_start WHERE project = ? AND start_ns BETWEEN ? AND ? ORDER BY start_ns ${d} LIMIT 1 OFFSET ${CHUNK_ROWS - 1}`,
  );
  edge.setReadBigInts(true);
  const where = plan.where.map((sql) => ` AND (${sql})`).join('');
  // INDEXED BY: a chunk is a range of start times; another index would make each chunk scan beyond it.
  const rows: StatementSync = db.prepare(
    `SELECT ${scan.columns} FROM spans INDEXED BY spans_start WHERE project = ? AND start_ns BETWEEN ? AND ?${where} ORDER BY start_ns ${d}, span_id ${d}, trace_id ${d}`,
  );
  rows.setReadBigInts(true);
  // The column is clamped at 2^63-1 (and a bound beyond it cannot be bound as an integer).
  const clamp = (ns: bigint) => (ns > MAX_NS ? MAX_NS : ns);
  let low = clamp(w.oldestNs ?? MIN_NS);
  let high = clamp(w.newestNs ?? MAX_NS);
  if (plan.byTraceId) {
    // A few traces' spans: one statement on the primary key (project, trace_id, ...). The `+` keeps SQLite
    // from walking the start-time index instead to save the sort.
    const few = db.prepare(
      `SELECT ${scan.columns} FROM spans WHERE project = ? AND +start_ns BETWEEN ? AND ?${where} ORDER BY +start_ns ${d}, span_id ${d}, trace_id ${d}`,
    );
    few.setReadBigInts(true);
    for (const row of few.iterate(project, low, high, ...(plan.params as SQLInputValue[]))) yield row as unknown as StoredSpan;
    return;
  }
  while (low <= high) {
    const at = (edge.get(project, low, high) as { start_ns: bigint } | undefined)?.start_ns;
    // Descending, the chunk is [at, high] and the next one ends below `at`; ascending, mirrored.
    const [from, to] = at === undefined ? [low, high] : descending ? [at, high] : [low, at];
    for (const row of rows.iterate(project, from, to, ...(plan.params as SQLInputValue[]))) yield row as unknown as StoredSpan;
    if (at === undefined) return;
    if (descending) high = at - 1n;
    else low = at + 1n;
    await scan.pause();
  }
}
