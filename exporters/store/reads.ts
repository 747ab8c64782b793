// The read side of the store (read-api.md §5, §6), called by the http receiver: fetch a trace as a trace
// map, delete a trace, and the flat query. Every method takes the caller's scope (`project`, '' for
// none, §2.4): a trace of another project reads exactly like an unknown one.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { readSpan, STORED_SPAN_COLUMNS, type AttributesForm, type StoredSpan } from './read-span.ts';
import { placeSpans, preOrder, spansMap, type TreeSpan } from './trace-map.ts';
import { runFlatQuery, type QueryResult } from './query.ts';
import type { FlatQuery } from './query-body.ts';

/** A stored span with what the trace map needs to place it. */
export interface LoadedSpan extends TreeSpan {
  row: StoredSpan;
  name: string;
}

export interface SpanLink {
  trace_id: string;
  span_id: string;
}

export function loaded(row: StoredSpan): LoadedSpan {
  return { row, spanId: row.span_id, parentId: row.parent_id, startNs: row.start_ns, name: row.span_name };
}

/** `{"spans": {...}}` of §4 for the stored spans of one trace. */
export function traceMap(spans: readonly LoadedSpan[], form: AttributesForm = 'nested'): Record<string, unknown> {
  return { spans: spansMap(placeSpans(spans), (s) => readSpan(s.row, form), (s) => s.name) };
}

export class TraceReads {
  readonly #db: DatabaseSync;
  readonly #trace: StatementSync;
  readonly #delete: StatementSync;
  readonly #deleteTrace: StatementSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#trace = db.prepare(`SELECT ${STORED_SPAN_COLUMNS} FROM spans WHERE project = ? AND trace_id = ?`);
    this.#trace.setReadBigInts(true);
    this.#delete = db.prepare('DELETE FROM spans WHERE project = ? AND trace_id = ?');
    this.#deleteTrace = db.prepare('DELETE FROM traces WHERE project = ? AND trace_id = ?');
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
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const spans = this.spansOf(project, traceId);
      this.#delete.run(project, traceId);
      this.#deleteTrace.run(project, traceId);
      this.#db.exec('COMMIT');
      return preOrder(placeSpans(spans)).map((s) => ({ trace_id: traceId, span_id: s.spanId }));
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  /** §6: the flat query, checked by parseFlatQuery (query-body.ts); throws QueryTimeoutError past `timeoutMs`. */
  query(project: string, query: FlatQuery, timeoutMs = Infinity): QueryResult {
    return runFlatQuery(this.#db, this, project, query, timeoutMs);
  }
}
