// The rows a query reads, in the order of read-api.md §6.3. The window, the scope and the SQL part of the
// filter (filter-sql.ts) make one statement, run on the read thread (read-worker.ts): however much of the
// store it scans, the event loop carries on, and the rows come back a chunk at a time until the caller has
// enough. A filter that names its trace ids reads their spans on the primary key instead of the window.
import type { FilterPlan } from './filter-sql.ts';
import type { StoredSpan } from './read-span.ts';
import type { ReadWorker } from './read-worker.ts';
import { MAX_COLUMN_NS } from './span-writer.ts';
import type { Windowing } from './windowing.ts';

const MIN_NS = -(1n << 63n);

/**
 * The window's time bounds on `start_ns`, inclusive (inWindow() decides at them). The column is clamped at
 * 2^63-1, and a bound beyond it could not be bound as an integer: it is clamped too.
 */
export function windowBounds(w: Windowing): [bigint, bigint] {
  const clamp = (ns: bigint) => (ns > MAX_COLUMN_NS ? MAX_COLUMN_NS : ns);
  return [clamp(w.oldestNs ?? MIN_NS), clamp(w.newestNs ?? MAX_COLUMN_NS)];
}

interface Scan {
  project: string;
  window: Windowing;
  plan: FilterPlan;
  /** The SELECT list. */
  columns: string;
}

/** The statement of a scan and its parameters; the bounds are inclusive here (inWindow() decides at them). */
function scanStatement(scan: Scan): { sql: string; params: Array<string | number | bigint | null> } {
  const { window: w, plan, project } = scan;
  const d = w.order === 'descending' ? 'DESC' : 'ASC';
  const where = plan.where.map((sql) => ` AND (${sql})`).join('');
  const params = [project, ...windowBounds(w), ...plan.params];
  if (plan.byTraceId) {
    // A few traces' spans, on the primary key (project, trace_id, ...). The `+` keeps SQLite from walking
    // the start-time index instead to save the sort.
    return { sql: `SELECT ${scan.columns} FROM spans WHERE project = ? AND +start_ns BETWEEN ? AND ?${where} ORDER BY +start_ns ${d}, span_id ${d}, trace_id ${d}`, params };
  }
  // INDEXED BY: rows come in start-time order as the index walk finds them, so a query that needs few rows
  // stops early; another index would make SQLite read and sort the whole match first.
  return {
    sql: `SELECT ${scan.columns} FROM spans INDEXED BY spans_start WHERE project = ? AND start_ns BETWEEN ? AND ?${where} ORDER BY start_ns ${d}, span_id ${d}, trace_id ${d}`,
    params,
  };
}

/** Rows matching the plan's SQL part in window order; throws QueryTimeoutError past `timeoutMs`. */
export async function* scanRows(worker: ReadWorker, scan: Scan, timeoutMs: number): AsyncGenerator<StoredSpan> {
  const { sql, params } = scanStatement(scan);
  for await (const chunk of worker.rows(sql, params, timeoutMs)) yield* chunk as unknown as StoredSpan[];
}
