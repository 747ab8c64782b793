import { AttributeList } from '../../model/attributes/list.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validator } from '../../test/helpers/schema-validator.ts';
import { RetryableError, StartupError } from '../../pipeline/errors.ts';
import { silentLogger, type Logger } from '../../pipeline/log.ts';
import { makeSpan } from '../../test/helpers/spans.ts';
import type { Span } from '../../model/span.ts';
import { factory } from './factory.ts';
import { StoreExporter, type StoreExporterOptions } from './store-exporter.ts';

let dir: string;
let opened: StoreExporter[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tracehop-store-'));
});
afterEach(async () => {
  for (const e of opened) await e.shutdown();
  opened = [];
  await rm(dir, { recursive: true, force: true });
});

/** A clock the test moves. */
function clock(start = Date.UTC(2026, 3, 16, 18, 18, 22, 104)) {
  const c = { ms: start, now: () => c.ms };
  return c;
}

async function started(options: Partial<StoreExporterOptions> = {}): Promise<StoreExporter> {
  const e = new StoreExporter({
    path: join(dir, 'sub', 'store.db'), maxBytes: 1 << 30, maxAge: 0, pruneInterval: 60_000, logger: silentLogger, ...options,
  });
  opened.push(e);
  await e.start();
  return e;
}

/** Bytes of the live pages of the store's file, measured as §9.3 counts them: pages in use times the page size. */
function usedBytes(path = join(dir, 'sub', 'store.db')): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const pragma = (name: string): number => Number(Object.values(db.prepare(`PRAGMA ${name}`).get()!)[0]);
    return (pragma('page_count') - pragma('freelist_count')) * pragma('page_size');
  } finally {
    db.close();
  }
}

function rows(path = join(dir, 'sub', 'store.db')): Array<Record<string, unknown>> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return db.prepare('SELECT trace_id, span_id, span_name, created_at, updated_at, record FROM spans ORDER BY trace_id, span_id').all();
  } finally {
    db.close();
  }
}

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('store exporter: config (read-api.md §10)', () => {
  it('fills the defaults and refuses max_bytes below 1 MiB', () => {
    const validate = validator(factory.schema);
    const config: Record<string, unknown> = {};
    expect(validate(config)).toBe(true);
    expect(config).toMatchObject({ path: './data/store.db', max_bytes: 1_073_741_824, max_age: 168 * 3_600_000, prune_interval: 60_000 });
    expect(validate({ max_bytes: 1_048_575 })).toBe(false);
    expect(validate({ max_bytes: 1_048_576 })).toBe(true);
    expect(validate({ max_age: 0 })).toBe(true);
    expect(validate({ colour: 1 })).toBe(false);
  });
});

describe('store exporter: writing (§9.1, §9.2)', () => {
  it('creates the file and its directories with WAL, incremental vacuum and schema version 1', async () => {
    const e = await started();
    await e.export([makeSpan()]);
    await e.shutdown();
    const db = new DatabaseSync(join(dir, 'sub', 'store.db'));
    expect(db.prepare('PRAGMA journal_mode').get()!.journal_mode).toBe('wal');
    expect(db.prepare('PRAGMA auto_vacuum').get()!.auto_vacuum).toBe(2);
    expect(db.prepare('PRAGMA user_version').get()!.user_version).toBe(1);
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'spans' AND sql IS NOT NULL").all().map((r) => r.name);
    expect(indexes.sort()).toEqual(['spans_head', 'spans_name', 'spans_parent', 'spans_span_type', 'spans_start', 'spans_trace_type']);
    db.close();
  });

  it('stores one row per span with the span record as JSON and the columns copied', async () => {
    const e = await started();
    const span = makeSpan({
      traceId: TRACE, spanId: 'a1b2c3d4e5f60718', parentId: '00f067aa0ba902b7', name: 'llm', spanType: 'llm',
      traceType: 'invocation', kind: 3, status: { code: 2 }, sessionId: 's1', userId: 'u1', project: 'p1',
      startNs: 18_446_744_073_709_551_615n, attributes: new AttributeList([['big', 9_007_199_254_740_993n]]),
    });
    await e.export([span]);
    await e.shutdown();
    const db = new DatabaseSync(join(dir, 'sub', 'store.db'), { readOnly: true });
    const row = db.prepare(`SELECT project, trace_id, span_id, parent_id, span_name, span_type, trace_type, span_kind, status_code,
      session_id, user_id, updated_at, record, CAST(start_ns AS TEXT) AS start_ns FROM spans`).all()[0];
    db.close();
    expect(row).toMatchObject({
      project: 'p1', trace_id: TRACE, span_id: 'a1b2c3d4e5f60718', parent_id: '00f067aa0ba902b7', span_name: 'llm',
      span_type: 'llm', trace_type: 'invocation', span_kind: 3, status_code: 2, session_id: 's1', user_id: 'u1', updated_at: null,
    });
    // The column is clamped to the largest 64-bit signed integer; the record keeps every digit.
    expect(row.start_ns).toBe('9223372036854775807');
    expect(row.record).toContain('"big":9007199254740993');
    expect(row.record).toContain('"start_time":"2554-07-21T23:34:33.709551615Z"');
  });

  it('collapses redelivered spans onto one row: created_at kept, updated_at only when the record changed (§12 test 30)', async () => {
    const c = clock();
    const e = await started({ now: c.now });
    const a = (name: string): Span => makeSpan({ traceId: TRACE, spanId: '00f067aa0ba902b7', name });
    await e.export([a('x')]);
    c.ms += 1000;
    await e.export([a('y')]);
    const afterY = rows();
    expect(afterY).toHaveLength(1);
    expect(afterY[0]).toMatchObject({ span_name: 'y', created_at: c.ms - 1000, updated_at: c.ms });
    c.ms += 1000;
    await e.export([a('y'), a('y')]);
    expect(rows()).toEqual(afterY);
  });

  it('writes a batch in one transaction: a failing span leaves none of the batch', async () => {
    const e = await started();
    const good = makeSpan({ traceId: TRACE });
    // A status code the NOT NULL column refuses is not possible from the pipeline; a span whose name is
    // not a string makes SQLite's bind fail half-way through the batch.
    const bad = makeSpan({ traceId: TRACE, name: undefined as unknown as string });
    await expect(e.export([good, bad])).rejects.toThrow(/store exporter: writing/);
    expect(rows()).toHaveLength(0);
    await e.export([good]);
    expect(rows()).toHaveLength(1);
  });

  it('refuses to export before start and after shutdown, as retryable', async () => {
    const e = new StoreExporter({ path: join(dir, 's.db'), maxBytes: 1 << 30, maxAge: 0, pruneInterval: 1000, logger: silentLogger });
    await expect(e.export([makeSpan()])).rejects.toBeInstanceOf(RetryableError);
    await e.start();
    await e.shutdown();
    await expect(e.export([makeSpan()])).rejects.toBeInstanceOf(RetryableError);
  });

  it('keeps what was stored across a restart', async () => {
    const first = await started();
    await first.export([makeSpan({ traceId: TRACE }), makeSpan({ traceId: TRACE })]);
    await first.shutdown();
    const second = await started();
    expect(second.reads()!.spansOf('', TRACE)).toHaveLength(2);
  });
});

describe('store exporter: start-up checks (§9.3)', () => {
  it('fails start-up on a damaged file, naming the path', async () => {
    const path = join(dir, 'bad.db');
    await writeFile(path, Buffer.alloc(8192, 0x5a));
    const e = new StoreExporter({ path, maxBytes: 1 << 30, maxAge: 0, pruneInterval: 1000, logger: silentLogger });
    const failure = e.start();
    await expect(failure).rejects.toBeInstanceOf(StartupError);
    await expect(failure).rejects.toThrow(path);
  });

  it('fails start-up on an unknown schema version or a foreign database', async () => {
    const newer = join(dir, 'newer.db');
    const db = new DatabaseSync(newer);
    db.exec('PRAGMA user_version = 7');
    db.close();
    await expect(new StoreExporter({ path: newer, maxBytes: 1 << 30, maxAge: 0, pruneInterval: 1000, logger: silentLogger }).start())
      .rejects.toThrow(`store exporter: cannot use ${newer}: unknown schema version 7`);
    const foreign = join(dir, 'foreign.db');
    const other = new DatabaseSync(foreign);
    other.exec('CREATE TABLE t (x)');
    other.close();
    await expect(new StoreExporter({ path: foreign, maxBytes: 1 << 30, maxAge: 0, pruneInterval: 1000, logger: silentLogger }).start())
      .rejects.toThrow(/not a tracehop store/);
  });
});

/** A trace of `spans` spans of about 1 KiB each. */
function bigTrace(i: number, spans = 100): Span[] {
  const traceId = (i + 1).toString(16).padStart(32, '0');
  return Array.from({ length: spans }, (_, j) => makeSpan({
    traceId, spanId: (j + 1).toString(16).padStart(16, '0'), attributes: new AttributeList([['ag.data.inputs.text', 'x'.repeat(1000)]]),
  }));
}

describe('store exporter: bounds (§9.3, §12 test 32)', () => {
  it('stays within max_bytes after each commit, pruning the least recently written traces whole', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger: Logger = { ...silentLogger, info: (msg, fields) => lines.push({ msg, ...fields }), child: () => logger };
    const c = clock();
    const e = await started({ maxBytes: 1_048_576, logger, now: c.now });
    for (let i = 0; i < 50; i++) {
      c.ms += 10;
      await e.export(bigTrace(i));
      expect(usedBytes()).toBeLessThanOrEqual(1_048_576);
    }
    const reads = e.reads()!;
    const counts = Array.from({ length: 50 }, (_, i) => reads.spansOf('', (i + 1).toString(16).padStart(32, '0')).length);
    // Whole traces: each is either all there or gone; the kept ones are the last written.
    expect(counts.every((n) => n === 0 || n === 100)).toBe(true);
    const firstKept = counts.indexOf(100);
    expect(firstKept).toBeGreaterThan(0);
    expect(counts.slice(firstKept).every((n) => n === 100)).toBe(true);
    expect(lines.some((l) => l.msg === 'store pruned' && l.reason === 'size' && Number(l.traces) > 0 && Number(l.bytes) > 0)).toBe(true);
  });

  it('never prunes the trace written last, even alone over the bound', async () => {
    const e = await started({ maxBytes: 1_048_576 });
    await e.export(bigTrace(0, 1500));
    expect(e.reads()!.spansOf('', (1).toString(16).padStart(32, '0'))).toHaveLength(1500);
  });

  it('deletes traces whose last write is older than max_age, by write time not span time', async () => {
    const c = clock();
    const e = await started({ maxAge: 1000, pruneInterval: 60_000, now: c.now });
    const old = makeSpan({ traceId: TRACE, startNs: 1_000_000_000n });
    await e.export([old]);
    c.ms += 600;
    const other = makeSpan({ traceId: '0af7651916cd43dd8448eb211c80319c' });
    await e.export([other]);
    c.ms += 600;
    e.pruneForAge();
    expect(e.reads()!.spansOf('', TRACE)).toHaveLength(0);
    expect(e.reads()!.spansOf('', other.traceId)).toHaveLength(1);
    // A span arriving for a pruned trace starts it again.
    await e.export([makeSpan({ traceId: TRACE })]);
    expect(e.reads()!.spansOf('', TRACE)).toHaveLength(1);
  });

  it('checks the age every prune_interval', async () => {
    const c = clock();
    const e = await started({ maxAge: 1000, pruneInterval: 20, now: c.now });
    await e.export([makeSpan({ traceId: TRACE })]);
    c.ms += 1001;
    const deadline = Date.now() + 10_000;
    while (e.reads()!.spansOf('', TRACE).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(e.reads()!.spansOf('', TRACE)).toHaveLength(0);
  });
});

describe('commit listeners of the reads (the PATCH route waits for its edits this way)', () => {
  it('are called after each committed batch, when the span record reads back, until removed', async () => {
    const e = await started();
    const reads = e.reads()!;
    const span = makeSpan();
    const seen: Array<string | undefined> = [];
    const stop = reads.onCommit(() => seen.push(reads.spanRecord(span.project ?? '', span.traceId, span.spanId)));
    expect(reads.spanRecord(span.project ?? '', span.traceId, span.spanId)).toBeUndefined();
    await e.export([span]);
    expect(seen).toEqual([rows()[0].record]);
    stop();
    await e.export([makeSpan()]);
    expect(seen).toHaveLength(1);
  });
});
