// Queries on the read thread (read-api.md §9.2): a slow query does not hold up the writes, and one past
// `query_timeout` is abandoned with its thread. Real store files, a real worker thread.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../pipeline/log.ts';
import { parseSimpleQuery } from '../../receivers/http/simple-query-body.ts';
import { ingested } from '../../test/helpers/store-fixture.ts';
import { fillStore } from '../../test/helpers/store-fill.ts';
import { openStoreDatabase } from './database.ts';
import { QueryTimeoutError } from './query.ts';
import { ReadWorker } from './read-worker.ts';
import type { SimpleQuery } from './simple-query.ts';
import { StoreExporter } from './store-exporter.ts';

const LIMITS = { defaultLimit: 100, maxLimit: 10_000 };

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tracehop-read-thread-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Heads whose `ag.meta` has a key none has: every trace's head is read and none matches. */
const NO_MATCH = parseSimpleQuery({ trace: { meta: { absent: 'x' } } }, LIMITS) as SimpleQuery;

describe('a slow query on the read thread', () => {
  it('does not hold up a write made while it runs: the write is committed before the query answers', async () => {
    const store = new StoreExporter({ path: join(dir, 'store.db'), maxBytes: 1 << 30, maxAge: 0, pruneInterval: 60_000, logger: silentLogger });
    await store.start();
    try {
      fillStore(store.path, 100_000);
      const reads = store.reads()!;
      const order: string[] = [];
      const query = reads.simpleQuery('', NO_MATCH).then((views) => {
        order.push('query');
        return views;
      });
      // Made on a later turn of the event loop, after the query began.
      const write = new Promise<void>((resolve, reject) => setImmediate(() => {
        store.export(ingested([{ trace_id: 'ab'.repeat(16), span_id: 'cd'.repeat(8), span_name: 'late', start_time: 1776363000, end_time: 1776363001 }]))
          .then(() => order.push('write'))
          .then(() => resolve(), reject);
      }));
      await write;
      expect(await query).toEqual([]);
      expect(order).toEqual(['write', 'query']);
      expect(reads.getTrace('', 'ab'.repeat(16))).toBeDefined();
    } finally {
      await store.shutdown();
    }
  });

  it('past query_timeout is abandoned (QueryTimeoutError, the 503) and the next query answers', async () => {
    const store = new StoreExporter({ path: join(dir, 'store.db'), maxBytes: 1 << 30, maxAge: 0, pruneInterval: 60_000, logger: silentLogger });
    await store.start();
    try {
      fillStore(store.path, 100_000);
      const reads = store.reads()!;
      await expect(reads.simpleQuery('', NO_MATCH, 1)).rejects.toThrow(QueryTimeoutError);
      const all = parseSimpleQuery({ windowing: { limit: 3 } }, LIMITS) as SimpleQuery;
      expect((await reads.simpleQuery('', all)).map((v) => v.trace_id)).toHaveLength(3);
    } finally {
      await store.shutdown();
    }
  });
});

describe('the read thread', () => {
  const collect = async (rows: AsyncIterable<Array<Record<string, unknown>>>) => {
    const out: Array<Record<string, unknown>> = [];
    for await (const chunk of rows) out.push(...chunk);
    return out;
  };

  it('ends the thread of a statement past its deadline and runs the next on a new one without waiting for it', async () => {
    const path = join(dir, 'store.db');
    openStoreDatabase(path).close();
    const worker = new ReadWorker(path);
    await worker.start();
    try {
      // One step of SQLite that counts for seconds: nothing returns to JavaScript until it ends.
      const slow = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000) SELECT count(*) AS n FROM c';
      await expect(collect(worker.rows(slow, [], 20))).rejects.toThrow(QueryTimeoutError);
      const order: string[] = [];
      const ended = worker.exited().then(() => order.push('old thread ended'));
      const next = collect(worker.rows('SELECT ? AS n', [7n], Infinity)).then((rows) => {
        order.push('next query');
        return rows;
      });
      expect(await next).toEqual([{ n: 7n }]);
      await ended;
      expect(order).toEqual(['next query', 'old thread ended']);
    } finally {
      await worker.close();
    }
  });

  it('does not start on a file it cannot open, naming the reason', async () => {
    const worker = new ReadWorker(join(dir, 'missing', 'store.db'));
    await expect(worker.start()).rejects.toThrow(/unable to open/);
    await worker.close();
  });

  it('stops a statement the caller left early, and streams a large one in chunks', async () => {
    const path = join(dir, 'store.db');
    openStoreDatabase(path).close();
    fillStore(path, 5000);
    const worker = new ReadWorker(path);
    await worker.start();
    try {
      let chunks = 0;
      for await (const chunk of worker.rows('SELECT span_id FROM spans ORDER BY span_id', [], Infinity)) {
        expect(chunk.length).toBeGreaterThan(0);
        if (++chunks === 2) break;
      }
      const all = await collect(worker.rows('SELECT span_id FROM spans ORDER BY span_id', [], Infinity));
      expect(all).toHaveLength(5000);
      expect(all[4999]).toEqual({ span_id: (5000).toString(16).padStart(16, '0') });
    } finally {
      await worker.close();
    }
  });
});
