// One delivered batch -> one transaction of upserts (read-api.md §9.2). The key (project, trace_id,
// span_id) makes at-least-once redelivery collapse onto one row; `created_at` is kept, `updated_at` set
// only when the new record differs from the stored one. The `traces` table then gets each touched
// trace's span count, write time and a running sum of the record bytes written for it: pruning's guess of
// what deleting the trace frees. The sum also counts replaced records, so it overestimates after
// redelivery; pruning measures the file again after each round, so a wrong guess costs a round, never a
// wrong bound. (Summing length(record) in SQL would read every record of the trace on every batch.)
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { BatchLinesEncoder } from '../../codec/record/index.ts';
import type { Span } from '../../model/span.ts';

/** The start_ns/end_ns column's range (2^63-1 ns): later times are clamped here; the record keeps them exact (§9.1). */
export const MAX_COLUMN_NS = (1n << 63n) - 1n;
const NEWLINE = 0x0a;

function columnNs(ns: bigint): bigint {
  return ns > MAX_COLUMN_NS ? MAX_COLUMN_NS : ns;
}

export class SpanWriter {
  readonly #db: DatabaseSync;
  readonly #upsert: StatementSync;
  readonly #touch: StatementSync;
  /** Writes the span records (flat attributes): one JSON line per span. */
  readonly #encoder = new BatchLinesEncoder();

  constructor(db: DatabaseSync) {
    this.#db = db;
    // In an UPDATE every right-hand side reads the row as it was, so `spans.record` is the old record.
    this.#upsert = db.prepare(`
      INSERT INTO spans (project, trace_id, span_id, parent_id, span_name, span_type, trace_type, span_kind,
        status_code, session_id, user_id, start_ns, end_ns, created_at, updated_at, record)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)
      ON CONFLICT (project, trace_id, span_id) DO UPDATE SET
        parent_id = excluded.parent_id, span_name = excluded.span_name, span_type = excluded.span_type,
        trace_type = excluded.trace_type, span_kind = excluded.span_kind, status_code = excluded.status_code,
        session_id = excluded.session_id, user_id = excluded.user_id, start_ns = excluded.start_ns,
        end_ns = excluded.end_ns,
        updated_at = CASE WHEN spans.record = excluded.record THEN spans.updated_at ELSE excluded.created_at END,
        record = excluded.record`);
    this.#touch = db.prepare(`
      INSERT INTO traces (project, trace_id, span_count, bytes, last_write)
      SELECT ?1, ?2, count(*), ?4, ?3 FROM spans WHERE project = ?1 AND trace_id = ?2
      ON CONFLICT (project, trace_id) DO UPDATE SET
        span_count = excluded.span_count, bytes = traces.bytes + excluded.bytes, last_write = excluded.last_write`);
  }

  /** Writes the spans in one transaction at store-clock time `nowMs`; throws (rolled back) on failure. */
  write(spans: readonly Span[], nowMs: number): void {
    if (spans.length === 0) return;
    const lines = this.#encoder.encode(spans);
    /** Per touched trace: project, trace id, record bytes written. */
    const touched = new Map<string, [string, string, number]>();
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      let start = 0;
      for (const span of spans) {
        const end = lines.indexOf(NEWLINE, start);
        const record = lines.toString('utf8', start, end);
        const bytes = end - start;
        start = end + 1;
        const project = span.project ?? '';
        this.#upsert.run(
          project, span.traceId, span.spanId, span.parentId ?? null, span.name, span.spanType ?? null,
          span.traceType ?? null, span.kind, span.status.code, span.sessionId ?? null, span.userId ?? null,
          columnNs(span.startNs), columnNs(span.endNs), nowMs, record,
        );
        const key = project + '/' + span.traceId;
        const entry = touched.get(key);
        if (entry === undefined) touched.set(key, [project, span.traceId, bytes]);
        else entry[2] += bytes;
      }
      for (const [project, traceId, bytes] of touched.values()) this.#touch.run(project, traceId, nowMs, bytes);
      this.#db.exec('COMMIT');
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    } finally {
      this.#encoder.release(lines);
    }
  }
}
