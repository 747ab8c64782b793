// The structured queries (read-api.md §7; §12 tests 15, 20, 21) on fixture F in a real database file:
// windowing's order and cursor, the shared filter, and the body's 422 entries.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../pipeline/log.ts';
import type { Problem } from './query-body.ts';
import type { TraceReads } from './reads.ts';
import { StoreExporter } from './store-exporter.ts';
import { parseStructuredQuery } from './structured-query-body.ts';
import { A, B, C, D, E, FIXTURE_F, G, T, T2, ingested } from '../../test/helpers/store-fixture.ts';

let dir: string;
let store: StoreExporter;
let reads: TraceReads;
const LIMITS = { defaultLimit: 100, maxLimit: 10_000 };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tracehop-structured-'));
  store = new StoreExporter({ path: join(dir, 'store.db'), maxBytes: 1 << 30, maxAge: 0, pruneInterval: 60_000, logger: silentLogger });
  await store.start();
  await store.export(ingested(FIXTURE_F));
  reads = store.reads()!;
});
afterEach(async () => {
  await store.shutdown();
  await rm(dir, { recursive: true, force: true });
});

async function run(focus: 'span' | 'trace', body: unknown): Promise<any> {
  const q = parseStructuredQuery(body, LIMITS, focus);
  if (Array.isArray(q)) throw new Error(JSON.stringify(q));
  return reads.structuredQuery('', focus, q);
}
const spanIds = async (body: unknown) => (await run('span', body)).spans.map((s: { span_id: string }) => s.span_id);
const problems = (body: unknown, focus: 'span' | 'trace' = 'span') =>
  (parseStructuredQuery(body, LIMITS, focus) as Problem[]).map((p) => [p.loc.join('.'), p.type]);

describe('POST /spans/query', () => {
  it('test 20: the filter, ascending', async () => {
    expect(await spanIds({ filtering: { conditions: [{ field: 'span_name', value: 'llm' }] }, windowing: { order: 'ascending' } })).toEqual([B, C]);
  });

  it('test 21: pages with newest and the cursor', async () => {
    expect(await spanIds({ windowing: { limit: 2 } })).toEqual([G, E]);
    expect(await spanIds({ windowing: { limit: 2, newest: '2026-04-16T18:18:21Z', next: E } })).toEqual([C, B]);
  });

  it('ascending: oldest exclusive, newest inclusive, and the cursor at oldest', async () => {
    expect(await spanIds({ windowing: { order: 'ascending' } })).toEqual([D, A, B, C, E, G]);
    expect(await spanIds({ windowing: { order: 'ascending', oldest: '2026-04-16T18:18:18Z', newest: '2026-04-16T18:18:19Z' } })).toEqual([B, C]);
    expect(await spanIds({ windowing: { order: 'ascending', oldest: '2026-04-16T18:18:18Z', next: '0000000000000001' } })).toEqual([A, B, C, E, G]);
  });
});

describe('POST /traces/query', () => {
  it('test 20: a list of traces in trace order, limit counting traces', async () => {
    const r = await run('trace', { windowing: { limit: 1 } });
    expect(r.count).toBe(1);
    expect(r.traces[0].trace_id).toBe(T2);
    expect(Object.keys(r.traces[0])).toEqual(['trace_id', 'spans']);
    expect(r.traces[0].spans).toEqual((reads.getTrace('', T2) as { spans: object }).spans);
    expect((await run('trace', {})).traces.map((t: { trace_id: string }) => t.trace_id)).toEqual([T2, T]);
    expect((await run('trace', { windowing: { order: 'ascending' } })).traces.map((t: { trace_id: string }) => t.trace_id)).toEqual([T, T2]);
  });

  it('pages with newest and the cursor: a trace given before does not come back by its older spans', async () => {
    const ids = async (windowing: object) => (await run('trace', { windowing })).traces.map((t: { trace_id: string }) => t.trace_id);
    expect(await ids({ limit: 1 })).toEqual([T2]);
    expect(await ids({ limit: 1, newest: '2026-04-16T18:20:00Z', next: T2 })).toEqual([T]);
    // T's newest span E starts at 18:18:21: the cursor turns it away, and with it T's older spans.
    expect(await ids({ limit: 1, newest: '2026-04-16T18:18:21Z', next: T })).toEqual([]);
    // Ascending mirrors it: T's oldest span D starts at 18:18:17.
    expect(await ids({ limit: 1, order: 'ascending' })).toEqual([T]);
    expect(await ids({ limit: 1, order: 'ascending', oldest: '2026-04-16T18:18:17Z', next: T })).toEqual([T2]);
  });

  it('a filter selects the traces, each with all its spans', async () => {
    const r = await run('trace', { filtering: { conditions: [{ field: 'status_code', value: 'STATUS_CODE_ERROR' }] } });
    expect(r.traces.map((t: { trace_id: string }) => t.trace_id)).toEqual([T]);
    expect(Object.keys(r.traces[0].spans)).toEqual(['late', 'agent', 'feedback']);
  });
});

describe('the body (§7, §2.3)', () => {
  it('test 15: saved-query references are not supported; other keys are unknown', () => {
    expect(problems({ query_ref: { id: 'x' } }, 'trace')).toEqual([['body.query_ref', 'not_supported']]);
    expect(problems({ filter: {} })).toEqual([['body.filter', 'extra_forbidden']]);
    expect(problems({ windowing: { order: 'up', limit: 0, colour: 1 } })).toEqual([
      ['body.windowing.colour', 'extra_forbidden'], ['body.windowing.limit', 'range'], ['body.windowing.order', 'enum'],
    ]);
    expect(problems({ windowing: { next: 'xyz' } })).toEqual([['body.windowing.next', 'invalid_id']]);
    expect(problems({ filtering: { conditions: [{ field: 'content', value: 1 }] } })[0][1]).toBe('not_supported');
  });
});
