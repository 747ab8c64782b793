// A store file with many spans, written straight into it with SQL (the store's writer would take seconds).
import { DatabaseSync } from 'node:sqlite';

/**
 * `spans` spans in `traces` traces (one root each, the rest its children), starting 2026-04-16T18:10:00Z a
 * microsecond apart, each with a record of a few hundred bytes: at 100k spans, a simple query that matches
 * no head (read-api.md §8.5) walks every span of the window, checking each is its trace's head (80-110 ms of
 * CPU here), and a spans query whose filter is left to JavaScript decodes every record (past 400 ms).
 * The file must exist with the store's schema (openStoreDatabase, or a started store exporter).
 */
export function fillStore(path: string, spans: number, traces = 20): void {
  const db = new DatabaseSync(path, { timeout: 5000 });
  try {
    db.exec(`
      WITH RECURSIVE n(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM n WHERE x < ${spans - 1})
      INSERT INTO spans (project, trace_id, span_id, parent_id, span_name, span_kind, status_code, start_ns, end_ns, created_at, record)
      SELECT '', printf('%032x', x % ${traces} + 1), printf('%016x', x + 1), CASE WHEN x < ${traces} THEN NULL ELSE printf('%016x', x % ${traces} + 1) END,
        'bulk', 0, 0, 1776363000000000000 + x * 1000, 1776363000000000000 + x * 1000 + 1, 0,
        json_object('trace_id', printf('%032x', x % ${traces} + 1), 'span_id', printf('%016x', x + 1), 'span_name', 'bulk',
          'attributes', json_object('pad', hex(randomblob(150))))
      FROM n`);
  } finally {
    db.close();
  }
}
