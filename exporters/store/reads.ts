// The read side of the store (read-api.md §5, §6), called by the http receiver: fetch a trace as a trace
// map, delete a trace, and the flat query. Every method takes the caller's scope (`project`, '' for
// none, §2.4): a trace of another project reads exactly like an unknown one.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { STORED_SPAN_COLUMNS, type StoredSpan } from './read-span.ts';
import { loaded, placeSpans, preOrder, traceMap, type LoadedSpan } from './trace-map.ts';
import { runFlatQuery, type QueryResult } from './query.ts';
import type { FlatQuery } from './query-body.ts';

export interface SpanLink {
  trace_id: string;
  span_id: string;
}

const SPANS_OF_TRACE = `SELECT ${STORED_SPAN_COLUMNS} FROM spans WHERE project = ? AND trace_id = ?`;

/**
 * Reads go through their own read-only connection: in WAL mode each read sees the last commit before it
 * began, and a query that yields to the event loop between rows (query.ts) holds no lock the writer
 * waits for. Deleting is a write, on the exporter's connection, in one transaction with its read.
 */
export class TraceReads {
  readonly #writer: DatabaseSync;
  readonly #reader: DatabaseSync;
  readonly #trace: StatementSync;
  readonly #traceToDelete: StatementSync;
  readonly #delete: StatementSync;
  readonly #deleteTrace: StatementSync;

  constructor(writer: DatabaseSync, reader: DatabaseSync) {
    this.#writer = writer;
    this.#reader = reader;
    this.#trace = reader.prepare(SPANS_OF_TRACE);
    this.#trace.setReadBigInts(true);
    this.#traceToDelete = writer.prepare(SPANS_OF_TRACE);
    this.#traceToDelete.setReadBigInts(true);
    this.#delete = writer.prepare('DELETE FROM spans WHERE project = ? AND trace_id = ?');
    this.#deleteTrace = writer.prepare('DELETE FROM traces WHERE project = ? AND trace_id = ?');
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

  /** §5.2: deletes every span of the trace in one transaction; the links of the deleted spans in pre-order. */
  deleteTrace(project: string, traceId: string): SpanLink[] {
    const db = this.#writer;
    db.exec('BEGIN IMMEDIATE');
    try {
      const spans = (this.#traceToDelete.all(project, traceId) as unknown as StoredSpan[]).map(loaded);
      this.#delete.run(project, traceId);
      this.#deleteTrace.run(project, traceId);
      db.exec('COMMIT');
      return preOrder(placeSpans(spans)).map((s) => ({ trace_id: traceId, span_id: s.spanId }));
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw error;
    }
  }

  /** §6: the flat query, checked by parseFlatQuery (query-body.ts); rejects with QueryTimeoutError past `timeoutMs`. */
  query(project: string, query: FlatQuery, timeoutMs = Infinity): Promise<QueryResult> {
    return runFlatQuery(this.#reader, (scope, id) => this.spansOf(scope, id), project, query, timeoutMs);
  }
}
