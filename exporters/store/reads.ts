// The read side of the store (read-api.md §5, §6), called by the http receiver: fetch a trace as a trace
// map, delete a trace, and the flat query. Every method takes the caller's scope (`project`, '' for
// none, §2.4): a trace of another project reads exactly like an unknown one.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { HEAD_FIRST, STORED_SPAN_COLUMNS, type StoredSpan } from './read-span.ts';
import { loaded, placeSpans, preOrder, traceMap, type LoadedSpan } from './trace-map.ts';
import { runFlatQuery, runQuery, type QueryResult } from './query.ts';
import type { ReadWorker } from './read-worker.ts';
import type { StructuredQuery } from './structured-query-body.ts';
import type { FlatQuery } from './query-body.ts';
import { simpleView } from './simple-view.ts';
import { runSimpleQuery, type SimpleQuery } from './simple-query.ts';

export interface SpanLink {
  trace_id: string;
  span_id: string;
}

const SPANS_OF_TRACE = `SELECT ${STORED_SPAN_COLUMNS} FROM spans WHERE project = ? AND trace_id = ?`;
const HEAD_OF_TRACE = `${SPANS_OF_TRACE} ORDER BY ${HEAD_FIRST} LIMIT 1`;
const RECORD_OF_SPAN = 'SELECT record FROM spans WHERE project = ? AND trace_id = ? AND span_id = ?';

/**
 * Reads go through read-only connections of their own: in WAL mode each read sees the last commit before
 * it began and holds no lock the writer waits for. The queries, which may scan much of the store, run on
 * the read thread (read-worker.ts); reads of one trace by its key stay on the main thread's reader.
 * Deleting is a write, on the exporter's connection, in one transaction with its read.
 */
export class TraceReads {
  readonly #writer: DatabaseSync;
  /** The read thread of the queries. */
  readonly #worker: ReadWorker;
  readonly #trace: StatementSync;
  readonly #head: StatementSync;
  readonly #traceToDelete: StatementSync;
  readonly #headToDelete: StatementSync;
  readonly #delete: StatementSync;
  readonly #deleteTrace: StatementSync;
  readonly #record: StatementSync;
  /** Called after each batch the store exporter commits (the PATCH route waits for its edits this way). */
  readonly #commitListeners = new Set<() => void>();

  constructor(writer: DatabaseSync, reader: DatabaseSync, worker: ReadWorker) {
    this.#writer = writer;
    this.#worker = worker;
    this.#trace = reader.prepare(SPANS_OF_TRACE);
    this.#trace.setReadBigInts(true);
    this.#head = reader.prepare(HEAD_OF_TRACE);
    this.#head.setReadBigInts(true);
    this.#traceToDelete = writer.prepare(SPANS_OF_TRACE);
    this.#traceToDelete.setReadBigInts(true);
    this.#headToDelete = writer.prepare(HEAD_OF_TRACE);
    this.#headToDelete.setReadBigInts(true);
    this.#delete = writer.prepare('DELETE FROM spans WHERE project = ? AND trace_id = ?');
    this.#deleteTrace = writer.prepare('DELETE FROM traces WHERE project = ? AND trace_id = ?');
    this.#record = reader.prepare(RECORD_OF_SPAN);
  }

  /** The stored record of one span, or undefined when it is not stored in this scope. */
  spanRecord(project: string, traceId: string, spanId: string): string | undefined {
    return (this.#record.get(project, traceId, spanId) as { record: string } | undefined)?.record;
  }

  /**
   * Calls `listener` after each batch the store commits, and once when the store shuts down (a listener then
   * looks up the store that replaces it, if any: a reload), until the returned function is called.
   */
  onCommit(listener: () => void): () => void {
    this.#commitListeners.add(listener);
    return () => this.#commitListeners.delete(listener);
  }

  /** The store exporter committed a batch: tells the listeners, synchronously (before the next batch). */
  committed(): void {
    for (const listener of this.#commitListeners) listener();
  }

  /** The store exporter is shutting down (no more commits): tells the listeners once, then lets them go. */
  shuttingDown(): void {
    const listeners = [...this.#commitListeners];
    this.#commitListeners.clear();
    for (const listener of listeners) listener();
  }

  /** The stored spans of one trace (none: empty). */
  spansOf(project: string, traceId: string): LoadedSpan[] {
    return (this.#trace.all(project, traceId) as unknown as StoredSpan[]).map(loaded);
  }

  /** §5.1: the trace's `{"spans": {...}}`, or undefined when nothing of it is stored in this scope. */
  getTrace(project: string, traceId: string): Record<string, unknown> | undefined {
    const spans = this.spansOf(project, traceId);
    return spans.length === 0 ? undefined : traceMap(spans);
  }

  /** §8.1: the stored head span of the trace, or undefined when nothing of it is stored in this scope. */
  headSpan(project: string, traceId: string): StoredSpan | undefined {
    return this.#head.get(project, traceId) as unknown as StoredSpan | undefined;
  }

  /** §8.2: the SimpleTrace view of the trace, or undefined when nothing of it is stored in this scope. */
  simpleTrace(project: string, traceId: string): Record<string, unknown> | undefined {
    const head = this.headSpan(project, traceId);
    return head === undefined ? undefined : simpleView(head);
  }

  /** §5.2: deletes every span of the trace in one transaction; the links of the deleted spans in pre-order. */
  deleteTrace(project: string, traceId: string): SpanLink[] {
    const spans = this.#deleting(project, traceId, () => (this.#traceToDelete.all(project, traceId) as unknown as StoredSpan[]).map(loaded));
    return preOrder(placeSpans(spans)).map((s) => ({ trace_id: traceId, span_id: s.spanId }));
  }

  /** §8.4: deletes the trace as deleteTrace; the link of its head span (§8.1), or undefined when nothing was deleted. */
  deleteSimpleTrace(project: string, traceId: string): SpanLink | undefined {
    const head = this.#deleting(project, traceId, () => this.#headToDelete.get(project, traceId) as unknown as StoredSpan | undefined);
    return head === undefined ? undefined : { trace_id: traceId, span_id: head.span_id };
  }

  /** Deletes every span of the trace in one transaction; what `read` read of it in the same one, before. */
  #deleting<T>(project: string, traceId: string, read: () => T): T {
    const db = this.#writer;
    db.exec('BEGIN IMMEDIATE');
    try {
      const before = read();
      this.#delete.run(project, traceId);
      this.#deleteTrace.run(project, traceId);
      db.exec('COMMIT');
      return before;
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw error;
    }
  }

  /** §8.5: the views of the matching traces; rejects with QueryTimeoutError past `timeoutMs`. */
  simpleQuery(project: string, query: SimpleQuery, timeoutMs = Infinity): Promise<Record<string, unknown>[]> {
    return runSimpleQuery(this.#worker, project, query, timeoutMs);
  }

  /**
   * §7: `POST /spans/query` (`focus` span: `{count, spans}`) or `POST /traces/query` (focus trace: `{count,
   * traces: [{trace_id, spans}, ...]}` in trace order); rejects with QueryTimeoutError past `timeoutMs`.
   */
  async structuredQuery(project: string, focus: 'span' | 'trace', query: StructuredQuery, timeoutMs = Infinity): Promise<Record<string, unknown>> {
    const run = { focus, format: 'agenta' as const, filter: query.filter, window: query.windowing };
    const result = await runQuery(this.#worker, (scope, id) => this.spansOf(scope, id), project, run, timeoutMs);
    if (!('traces' in result)) return result;
    return { count: result.count, traces: Object.entries(result.traces).map(([traceId, trace]) => ({ trace_id: traceId, ...(trace as object) })) };
  }

  /** §6: the flat query, checked by parseFlatQuery (query-body.ts); rejects with QueryTimeoutError past `timeoutMs`. */
  query(project: string, query: FlatQuery, timeoutMs = Infinity): Promise<QueryResult> {
    return runFlatQuery(this.#worker, (scope, id) => this.spansOf(scope, id), project, query, timeoutMs);
  }
}
