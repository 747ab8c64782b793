// Running a checked flat query (read-api.md §6.3, §6.4). The window, the scope and the filter are SQL
// (filter-sql.ts), run on the read thread (read-worker.ts); only the part of a filter SQL cannot say
// exactly is evaluated here, on the main thread, on the decoded record of a candidate row. Rows come in
// the order of §6.3 (start time, span id, trace id, all descending), and reading stops as soon as the limit
// is met. The spans of the traces found are read here by their key, bounded by the answer's size.
import { matchesFilter } from './filter.ts';
import { planFilter } from './filter-sql.ts';
import { scanRows } from './scan.ts';
import type { Filter, FlatQuery } from './query-body.ts';
import type { ReadWorker } from './read-worker.ts';
import { inWindow, type Windowing } from './windowing.ts';
import { parseRecord, readSpan, STORED_SPAN_COLUMNS } from './read-span.ts';
import { placeSpans, preOrder, traceMap, type LoadedSpan } from './trace-map.ts';

export { QueryTimeoutError } from './query-timeout.ts';

export type QueryResult =
  | { count: number; traces: Record<string, unknown> }
  | { count: number; spans: Array<Record<string, unknown>> };

/** §6.1 `rate`: a trace is kept when its first 8 hex digits modulo 100 are below floor(rate * 100). */
export function sampled(traceId: string, rate: number): boolean {
  return Number.parseInt(traceId.slice(0, 8), 16) % 100 < Math.floor(rate * 100);
}

/** The window of a flat query (§6.1): descending, `oldest` inclusive, `newest` exclusive, no cursor. */
function flatWindow(query: FlatQuery): Windowing {
  return { oldestNs: query.oldestNs, newestNs: query.newestNs, limit: query.limit, rate: query.rate, order: 'descending' };
}

/** What a query selects and how it answers: a flat query (§6) or a structured one (§7). */
interface QueryRun {
  focus: 'trace' | 'span';
  format: 'agenta' | 'opentelemetry';
  filter: Filter;
  window: Windowing;
}

/**
 * `timeoutMs`: the longest the query may run (`read.query_timeout`); Infinity: no bound. Ascending
 * (§7) mirrors every order: spans oldest first, traces by the oldest start among their matching spans.
 */
export async function runQuery(worker: ReadWorker, spansOf: (project: string, traceId: string) => LoadedSpan[], project: string, run: QueryRun, timeoutMs = Infinity): Promise<QueryResult> {
  const form = run.format === 'opentelemetry' ? 'flat' : 'nested';
  const w = run.window;
  const descending = w.order === 'descending';
  const plan = planFilter(run.filter);
  const residual = plan.residual;
  if (run.focus === 'span') {
    const spans: Array<Record<string, unknown>> = [];
    const scan = { project, window: w, plan, columns: STORED_SPAN_COLUMNS };
    for await (const row of scanRows(worker, scan, timeoutMs)) {
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
  // Traces whose matching row at the cursor's bound was turned away by `next`: a page before gave them,
  // and their older rows must not let them back in.
  const given = new Set<string>();
  let boundary: bigint | undefined;
  // Without a residual filter the record is not needed: the rows SQL gives match.
  const columns = residual === undefined ? 'trace_id, span_id, start_ns' : STORED_SPAN_COLUMNS;
  for await (const row of scanRows(worker, { project, window: w, plan, columns }, timeoutMs)) {
    if (boundary !== undefined && (descending ? row.start_ns < boundary : row.start_ns > boundary)) break;
    if (first.has(row.trace_id) || given.has(row.trace_id) || !sampled(row.trace_id, w.rate)) continue;
    const inside = inWindow(w, row.start_ns, row.trace_id);
    // Only a row at the cursor's bound can be turned away by `next` (the SQL bounds are inclusive).
    if (!inside && (w.next === undefined || row.start_ns !== (descending ? w.newestNs : w.oldestNs))) continue;
    if (residual !== undefined && !matchesFilter(residual, parseRecord(row.record))) continue;
    if (!inside) {
      given.add(row.trace_id);
      continue;
    }
    first.set(row.trace_id, row.start_ns);
    if (first.size === w.limit) boundary = row.start_ns;
  }
  const sign = descending ? -1 : 1;
  const order = [...first].sort(([a, sa], [b, sb]) => sign * (sa !== sb ? (sa < sb ? -1 : 1) : a < b ? -1 : a > b ? 1 : 0));
  // Read on the main thread's connection, after the scan's snapshot: a trace deleted since is left out.
  const found = order.slice(0, w.limit).map(([id]) => [id, spansOf(project, id)] as const).filter(([, spans]) => spans.length > 0);
  if (run.format === 'opentelemetry') {
    const spans = found.flatMap(([, trace]) => preOrder(placeSpans(trace)).map((s) => readSpan(s.row, 'flat')));
    return { count: spans.length, spans };
  }
  const traces: Record<string, unknown> = {};
  for (const [id, spans] of found) traces[id] = traceMap(spans);
  return { count: found.length, traces };
}

/** §6: a checked flat query. */
export function runFlatQuery(worker: ReadWorker, spansOf: (project: string, traceId: string) => LoadedSpan[], project: string, query: FlatQuery, timeoutMs = Infinity): Promise<QueryResult> {
  return runQuery(worker, spansOf, project, { focus: query.focus, format: query.format, filter: query.filter, window: flatWindow(query) }, timeoutMs);
}
