// The heads of the simple query (read-api.md §8.1, §8.5) walked lazily in window order (simple-query.ts)
// against the statement they replaced, kept here as the oracle: a window function that ranks every span of
// the project by HEAD_FIRST, then tests the head's start against the window. A real store file with traces
// whose heads are roots, rootless traces, several roots, ties on start time within and across traces, roots
// that start after their children (heads outside a window that holds other spans) and a second project.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../pipeline/log.ts';
import { openStoreDatabase } from './database.ts';
import { HEAD_FIRST, STORED_SPAN_COLUMNS } from './read-span.ts';
import { windowBounds } from './scan.ts';
import { headsStatement, type SimpleQuery } from './simple-query.ts';
import { StoreExporter } from './store-exporter.ts';
import { inWindow, type Windowing } from './windowing.ts';

/** The statement simple-query.ts used before: every span of the project ranked before the first row. */
function oracle(db: DatabaseSync, project: string, w: Windowing): Array<Record<string, unknown>> {
  const d = w.order === 'ascending' ? 'ASC' : 'DESC';
  const sql =
    `SELECT ${STORED_SPAN_COLUMNS} FROM (SELECT ${STORED_SPAN_COLUMNS}, row_number() OVER ` +
    `(PARTITION BY trace_id ORDER BY ${HEAD_FIRST}) AS n FROM spans WHERE project = ?) ` +
    `WHERE n = 1 AND start_ns BETWEEN ? AND ? ORDER BY start_ns ${d}, trace_id ${d}`;
  return db.prepare(sql).all(project, ...windowBounds(w));
}

/** A small deterministic generator (the same store on every run). */
function generator(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % n;
  };
}

/** Spans of `traces` traces in `project`; start times 0..40 ns so that many tie. */
function fill(db: DatabaseSync, project: string, traces: number, seed: number): void {
  const next = generator(seed);
  const insert = db.prepare(
    `INSERT INTO spans (project, trace_id, span_id, parent_id, span_name, span_kind, status_code, start_ns, end_ns, created_at, record)
     VALUES (?, ?, ?, ?, 'x', 0, 0, ?, ?, 0, json_object('trace_id', ?2, 'span_id', ?3, 'span_name', 'x', 'attributes', json_object()))`);
  db.exec('BEGIN');
  for (let t = 0; t < traces; t++) {
    const traceId = (t + 1).toString(16).padStart(32, '0');
    const spans = 1 + next(7);
    // Shapes: 0-1 one root, 2 rootless (orphans only), 3 several roots, 4 a root after all its children.
    const shape = next(5);
    for (let s = 0; s < spans; s++) {
      const spanId = next(0xffff).toString(16).padStart(16, '0') + s.toString(16);
      const root = shape === 3 ? s % 2 === 0 : shape !== 2 && s === 0;
      const start = shape === 4 && s === 0 ? 30 + next(11) : next(shape === 4 ? 30 : 41);
      insert.run(project, traceId, spanId.slice(-16), root ? null : 'ffffffffffffffff', BigInt(start), BigInt(start + 1));
    }
  }
  db.exec('COMMIT');
}

const BOUNDS = [undefined, 0n, 5n, 12n, 20n, 31n, 40n];

function windows(): Windowing[] {
  const out: Windowing[] = [];
  for (const oldestNs of BOUNDS) {
    for (const newestNs of BOUNDS) {
      if (oldestNs !== undefined && newestNs !== undefined && oldestNs > newestNs) continue;
      for (const order of ['descending', 'ascending'] as const) out.push({ oldestNs, newestNs, order, limit: 10_000, rate: 1 });
    }
  }
  return out;
}

let dir: string;
let store: StoreExporter;
let db: DatabaseSync;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tracehop-heads-'));
  store = new StoreExporter({ path: join(dir, 'store.db'), maxBytes: 1 << 30, maxAge: 0, pruneInterval: 60_000, logger: silentLogger });
  await store.start();
  db = new DatabaseSync(store.path, { timeout: 5000 });
  fill(db, '', 120, 7);
  // The same trace ids in another project, other spans: they must not change the first project's heads.
  fill(db, 'p1', 120, 11);
});
afterEach(async () => {
  db.close();
  await store.shutdown();
  await rm(dir, { recursive: true, force: true });
});

describe('the simple query heads, against the window-function statement', () => {
  it('gives the same rows in the same order for every window, both orders, both projects', () => {
    let compared = 0;
    for (const project of ['', 'p1']) {
      for (const w of windows()) {
        const { sql, params } = headsStatement(project, w);
        const got = db.prepare(sql).all(...params);
        expect(got, `${project} ${w.order} ${w.oldestNs}..${w.newestNs}`).toEqual(oracle(db, project, w));
        compared += got.length;
      }
    }
    // The store gives heads in and out of the windows: the comparison was not of empty lists.
    expect(compared).toBeGreaterThan(1000);
  });

  it('leaves out a trace whose head is outside the window though other spans of it are inside', () => {
    const w: Windowing = { oldestNs: 0n, newestNs: 29n, order: 'descending', limit: 10_000, rate: 1 };
    const { sql, params } = headsStatement('', w);
    const got = new Set(db.prepare(sql).all(...params).map((row) => row.trace_id));
    const inside = db.prepare('SELECT DISTINCT trace_id FROM spans WHERE project = ? AND start_ns BETWEEN 0 AND 29').all('').map((row) => row.trace_id);
    const late = inside.filter((id) => !got.has(id));
    expect(late.length).toBeGreaterThan(0);
    for (const id of late) {
      const head = db.prepare(`SELECT start_ns FROM spans WHERE project = '' AND trace_id = ? ORDER BY ${HEAD_FIRST} LIMIT 1`).get(id as string)!;
      expect(head.start_ns).toBeGreaterThan(29);
    }
  });

  it('through the read thread: the first `limit` of the oracle heads inside the window (bounds tested as §7)', async () => {
    const reads = store.reads()!;
    for (const w of windows()) {
      for (const limit of [1, 3, 10]) {
        const query: SimpleQuery = { windowing: { ...w, limit } };
        const want = oracle(db, '', w).filter((row) => inWindow(w, BigInt(row.start_ns as number), row.trace_id as string)).slice(0, limit);
        const got = await reads.simpleQuery('', query);
        expect(got.map((v) => [v.trace_id, v.span_id]), `${w.order} ${w.oldestNs}..${w.newestNs} limit ${limit}`).toEqual(want.map((row) => [row.trace_id, row.span_id]));
      }
    }
  });

  it('picks each head with one seek on spans_head, walking the window on spans_start', () => {
    const { sql } = headsStatement('', windows()[0]);
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('', 0n, 1n).map((row) => String(row.detail));
    expect(plan[0]).toMatch(/^SEARCH s USING INDEX spans_start/);
    expect(plan).toContainEqual(expect.stringMatching(/^SEARCH spans USING COVERING INDEX spans_head \(project=\? AND trace_id=\?\)$/));
    // The subquery's order is the index's: no sort per span.
    expect(plan.filter((detail) => detail.includes('TEMP B-TREE'))).toEqual(['USE TEMP B-TREE FOR LAST TERM OF ORDER BY']);
  });
});

describe('a store file written before spans_head', () => {
  it('gets the index when it is opened, its rows indexed', () => {
    const path = join(dir, 'older.db');
    const older = openStoreDatabase(path);
    older.exec('DROP INDEX spans_head');
    fill(older, '', 5, 3);
    older.close();
    const opened = openStoreDatabase(path);
    try {
      const count = opened.prepare("SELECT count(*) AS n FROM spans INDEXED BY spans_head WHERE project = ''").get()!;
      expect(count.n).toBe(opened.prepare("SELECT count(*) AS n FROM spans WHERE project = ''").get()!.n);
      expect(Number(count.n)).toBeGreaterThan(0);
    } finally {
      opened.close();
    }
  });
});
