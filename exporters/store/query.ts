// Running a checked flat query (read-api.md §6.3, §6.4). The window, the scope and the indexed part of
// the filter are SQL; every candidate row is then decoded and the whole filter evaluated on it, in the
// order of §6.3 (start time, span id, trace id, all descending), stopping as soon as the limit is met.
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { matchesFilter, sqlPart } from './filter.ts';
import type { FlatQuery } from './query-body.ts';
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

function candidates(db: DatabaseSync, project: string, query: FlatQuery): Iterable<StoredSpan> {
  const where = ['project = ?'];
  const params: SQLInputValue[] = [project];
  if (query.oldestNs !== undefined) {
    where.push('start_ns >= ?');
    params.push(query.oldestNs);
  }
  if (query.newestNs !== undefined) {
    where.push('start_ns < ?');
    params.push(query.newestNs);
  }
  const part = sqlPart(query.filter);
  where.push(...part.where);
  params.push(...part.params);
  const statement = db.prepare(
    `SELECT ${STORED_SPAN_COLUMNS} FROM spans WHERE ${where.join(' AND ')} ORDER BY start_ns DESC, span_id DESC, trace_id DESC`,
  );
  statement.setReadBigInts(true);
  return statement.iterate(...params) as Iterable<StoredSpan>;
}

/** `timeoutMs`: the longest the query may run (`read.query_timeout`); Infinity: no bound. */
export async function runFlatQuery(db: DatabaseSync, spansOf: (project: string, traceId: string) => LoadedSpan[], project: string, query: FlatQuery, timeoutMs = Infinity): Promise<QueryResult> {
  const pacer = new Pacer(timeoutMs);
  const form = query.format === 'opentelemetry' ? 'flat' : 'nested';
  const empty = query.oldestNs !== undefined && query.newestNs !== undefined && query.oldestNs >= query.newestNs;
  if (query.focus === 'span') {
    const spans: Array<Record<string, unknown>> = [];
    if (!empty) {
      for (const row of candidates(db, project, query)) {
        if (pacer.due()) await pacer.pause();
        if (!matchesFilter(query.filter, parseRecord(row.record))) continue;
        spans.push(readSpan(row, form));
        if (spans.length >= query.limit) break;
      }
    }
    return { count: spans.length, spans };
  }

  // Focus trace: traces by the newest start among their matching spans. Rows come newest first, so a
  // trace's first matching row is its newest; after `limit` traces, rows at the same start time may
  // still bring a trace that sorts earlier (a larger trace id), so those are read too.
  const newest = new Map<string, bigint>();
  let boundary: bigint | undefined;
  if (!empty) {
    for (const row of candidates(db, project, query)) {
      if (pacer.due()) await pacer.pause();
      if (boundary !== undefined && row.start_ns < boundary) break;
      if (newest.has(row.trace_id) || !sampled(row.trace_id, query.rate)) continue;
      if (!matchesFilter(query.filter, parseRecord(row.record))) continue;
      newest.set(row.trace_id, row.start_ns);
      if (newest.size === query.limit) boundary = row.start_ns;
    }
  }
  const order = [...newest].sort(([a, sa], [b, sb]) => (sa !== sb ? (sa > sb ? -1 : 1) : a > b ? -1 : a < b ? 1 : 0));
  const traceIds = order.slice(0, query.limit).map(([id]) => id);
  if (query.format === 'opentelemetry') {
    const spans = traceIds.flatMap((id) => preOrder(placeSpans(spansOf(project, id))).map((s) => readSpan(s.row, 'flat')));
    return { count: spans.length, spans };
  }
  const traces: Record<string, unknown> = {};
  for (const id of traceIds) traces[id] = traceMap(spansOf(project, id));
  return { count: traceIds.length, traces };
}
