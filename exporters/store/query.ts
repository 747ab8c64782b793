// Running a checked flat query (read-api.md §6.3, §6.4). The window, the scope and the filter are SQL
// (filter-sql.ts); only the part of a filter SQL cannot say exactly is evaluated on the decoded record of
// a candidate row. Rows come in the order of §6.3 (start time, span id, trace id, all descending), and
// reading stops as soon as the limit is met.
import type { DatabaseSync } from 'node:sqlite';
import { matchesFilter } from './filter.ts';
import { planFilter } from './filter-sql.ts';
import { scanRows, type ReadSnapshot } from './scan.ts';
import type { Filter, FlatQuery } from './query-body.ts';
import { inWindow, type Windowing } from './windowing.ts';
import { parseRecord, readSpan, STORED_SPAN_COLUMNS, type StoredSpan } from './read-span.ts';
import { placeSpans, preOrder, traceMap, type LoadedSpan } from './trace-map.ts';

/** A query ran past its deadline (`read.query_timeout`): abandoned, answered 503. */
export class QueryTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`The query took longer than query_timeout (${timeoutMs} ms); narrow it (window, filter, limit) or retry`);
    this.name = 'QueryTimeoutError';
  }
}

/** Rows between two pauses (and looks at the clock). */
const ROWS_PER_PAUSE = 256;

/**
 * Every few rows: throws QueryTimeoutError past `timeoutMs`, else gives the event loop a turn, so that a
 * long scan does not hold up the write routes' acknowledgements and the exporters (read-api.md §9.2).
 */
export class Pacer {
  readonly #timeoutMs: number;
  readonly #end: number;
  #rows = 0;
  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#end = performance.now() + timeoutMs;
  }
  /** True when the caller should await pause() before the next row. */
  due(): boolean {
    return ++this.#rows % ROWS_PER_PAUSE === 0;
  }
  async pause(): Promise<void> {
    if (performance.now() > this.#end) throw new QueryTimeoutError(this.#timeoutMs);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

export type QueryResult =
  | { count: number; traces: Record<string, unknown> }
  | { count: number; spans: Array<Record<string, unknown>> };

/** §6.1 `rate`: a trace is kept when its first 8 hex digits modulo 100 are below floor(rate * 100). */
export function sampled(traceId: string, rate: number): boolean {
  return Number.parseInt(traceId.slice(0, 8), 16) % 100 < Math.floor(rate * 100);
}

/** The window of a flat query (§6.1): descending, `oldest` inclusive, `newest` exclusive, no cursor. */
export function flatWindow(query: FlatQuery): Windowing {
  return { oldestNs: query.oldestNs, newestNs: query.newestNs, limit: query.limit, rate: query.rate, order: 'descending' };
}

/** What a query selects and how it answers: a flat query (§6) or a structured one (§7). */
export interface QueryRun {
  focus: 'trace' | 'span';
  format: 'agenta' | 'opentelemetry';
  filter: Filter;
  window: Windowing;
}

/**
 * `timeoutMs`: the longest the query may run (`read.query_timeout`); Infinity: no bound. Ascending
 * (§7) mirrors every order: spans oldest first, traces by the oldest start among their matching spans.
 */
export function runQuery(snapshot: ReadSnapshot, spansOf: (project: string, traceId: string) => LoadedSpan[], project: string, run: QueryRun, timeoutMs = Infinity): Promise<QueryResult> {
  return snapshot.run(() => query(snapshot.db, spansOf, project, run, new Pacer(timeoutMs)));
}

async function query(db: DatabaseSync, spansOf: (project: string, traceId: string) => LoadedSpan[], project: string, run: QueryRun, pacer: Pacer): Promise<QueryResult> {
  const form = run.format === 'opentelemetry' ? 'flat' : 'nested';
  const w = run.window;
  const descending = w.order === 'descending';
  const plan = planFilter(run.filter);
  const residual = plan.residual;
  if (run.focus === 'span') {
    const spans: Array<Record<string, unknown>> = [];
    const scan = { project, window: w, plan, columns: STORED_SPAN_COLUMNS, pause: () => pacer.pause() };
    for await (const row of scanRows(db, scan)) {
      if (pacer.due()) await pacer.pause();
      // `rate` samples traces (§6.1) whatever the focus: a span is kept when its trace is.
      if (!inWindow(w, row.start_ns, row.span_id) || !sampled(row.trace_id, w.rate)) continue;
      const record = parseRecord(row.record);
      if (residual !== undefined && !matchesFilter(residual, record)) continue;
      spans.push(readSpan(row, form, record));
      if (spans.length >= w.limit) break;
    }
    return { count: spans.length, spans };
  }

  // Focus trace: traces by the newest start among their matching spans. Rows come newest first, so a
  // trace's first matching row is its newest; after `limit` traces, rows at the same start time may
  // still bring a trace that sorts earlier (a larger trace id), so those are read too.
  const first = new Map<string, bigint>();
  let boundary: bigint | undefined;
  // Without a residual filter the record is not needed: the rows SQL gives match.
  const columns = residual === undefined ? 'trace_id, span_id, start_ns' : STORED_SPAN_COLUMNS;
  for await (const row of scanRows(db, { project, window: w, plan, columns, pause: () => pacer.pause() })) {
    if (pacer.due()) await pacer.pause();
    if (boundary !== undefined && (descending ? row.start_ns < boundary : row.start_ns > boundary)) break;
    if (first.has(row.trace_id) || !sampled(row.trace_id, w.rate)) continue;
    if (!inWindow(w, row.start_ns, row.trace_id)) continue;
    if (residual !== undefined && !matchesFilter(residual, parseRecord(row.record))) continue;
    first.set(row.trace_id, row.start_ns);
    if (first.size === w.limit) boundary = row.start_ns;
  }
  const sign = descending ? -1 : 1;
  const order = [...first].sort(([a, sa], [b, sb]) => sign * (sa !== sb ? (sa < sb ? -1 : 1) : a < b ? -1 : a > b ? 1 : 0));
  const traceIds = order.slice(0, w.limit).map(([id]) => id);
  if (run.format === 'opentelemetry') {
    const spans = traceIds.flatMap((id) => preOrder(placeSpans(spansOf(project, id))).map((s) => readSpan(s.row, 'flat')));
    return { count: spans.length, spans };
  }
  const traces: Record<string, unknown> = {};
  for (const id of traceIds) traces[id] = traceMap(spansOf(project, id));
  return { count: traceIds.length, traces };
}

/** §6: a checked flat query. */
export function runFlatQuery(snapshot: ReadSnapshot, spansOf: (project: string, traceId: string) => LoadedSpan[], project: string, query: FlatQuery, timeoutMs = Infinity): Promise<QueryResult> {
  return runQuery(snapshot, spansOf, project, { focus: query.focus, format: query.format, filter: query.filter, window: flatWindow(query) }, timeoutMs);
}
