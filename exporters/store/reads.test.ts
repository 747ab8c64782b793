// The store's read side on fixture F (read-api.md §12): trace maps, delete, and the flat query with the
// checklist's bodies, against a real database file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../pipeline/log.ts';
import { parseFlatQuery, type FlatQuery, type Problem } from './query-body.ts';
import { QueryTimeoutError } from './query.ts';
import type { TraceReads } from './reads.ts';
import { StoreExporter } from './store-exporter.ts';
import { A, B, C, D, E, FIXTURE_F, G, T, T2, ingested } from '../../test/helpers/store-fixture.ts';

let dir: string;
let store: StoreExporter;
let reads: TraceReads;
const LIMITS = { defaultLimit: 100, maxLimit: 10_000 };
const CREATED = Date.UTC(2026, 3, 16, 18, 18, 22, 104);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tracehop-reads-'));
  store = new StoreExporter({ path: join(dir, 'store.db'), maxBytes: 1 << 30, maxAge: 0, pruneInterval: 60_000, logger: silentLogger, now: () => CREATED });
  await store.start();
  await store.export(ingested(FIXTURE_F));
  reads = store.reads()!;
});
afterEach(async () => {
  await store.shutdown();
  await rm(dir, { recursive: true, force: true });
});

async function query(body: unknown): Promise<Record<string, unknown>> {
  const q = parseFlatQuery(body, LIMITS);
  if (Array.isArray(q)) throw new Error(JSON.stringify(q));
  return (await reads.query('', q as FlatQuery)) as Record<string, unknown>;
}
const spanIds = async (body: unknown) => ((await query(body)).spans as Array<{ span_id: string }>).map((s) => s.span_id);
const problems = (body: unknown) => parseFlatQuery(body, LIMITS) as Problem[];
type Node = Record<string, unknown> & { spans?: Record<string, Node | Node[]> };

describe('fetch a trace (§4, §5.1)', () => {
  it('builds the trace map: roots and orphans on top in start order, same-name children as a list (§12 test 1)', () => {
    const trace = reads.getTrace('', T) as { spans: Record<string, Node | Node[]> };
    expect(Object.keys(trace.spans)).toEqual(['late', 'agent', 'feedback']);
    const late = trace.spans.late as Node;
    expect(late.parent_id).toBe('d1b2c3d4e5f60718');
    expect(late.spans).toBeUndefined();
    const agent = trace.spans.agent as Node;
    const llm = agent.spans!.llm as Node[];
    expect(llm.map((s) => s.span_id)).toEqual([B, C]);
    expect((trace.spans.feedback as Node).spans).toBeUndefined();
    // Span B is §3's example, key for key and in that order.
    expect(JSON.stringify(llm[0])).toBe(JSON.stringify({
      trace_id: T, span_id: B, parent_id: A, span_name: 'llm', span_kind: 'SPAN_KIND_UNSPECIFIED', span_type: 'llm',
      trace_type: 'invocation', start_time: '2026-04-16T18:18:18.5Z', end_time: '2026-04-16T18:18:19Z', status_code: 'STATUS_CODE_UNSET',
      attributes: { ag: { type: { span: 'llm', trace: 'invocation' }, metrics: { duration: { cumulative: 500 } } }, score: 0.9 },
      created_at: '2026-04-16T18:18:22.104Z',
    }));
  });

  it('answers nothing for an unknown trace or another scope (§2.4, §12 tests 3 and 31)', () => {
    expect(reads.getTrace('', '0123456789abcdef0123456789abcdef')).toBeUndefined();
    expect(reads.getTrace('p2', T)).toBeUndefined();
  });

  it('keeps projects apart: the same ids in two projects are two traces', async () => {
    await store.export(ingested([{ ...FIXTURE_F[0], span_name: 'other' }], 'p1'));
    expect(Object.keys((reads.getTrace('p1', T) as { spans: object }).spans)).toEqual(['other']);
    expect(Object.keys((reads.getTrace('', T) as { spans: object }).spans)).toEqual(['late', 'agent', 'feedback']);
    expect(reads.deleteTrace('p2', T)).toEqual([]);
    expect(reads.getTrace('p1', T)).toBeDefined();
  });

  it('keeps a span named __proto__ as a member of the map', async () => {
    const trace = '22222222222222222222222222222222';
    await store.export(ingested([{ trace_id: trace, span_id: '3333333333333333', span_name: '__proto__', start_time: 1776363498, end_time: 1776363499 }]));
    const text = JSON.stringify(reads.getTrace('', trace));
    const spans = JSON.parse(text).spans;
    expect(Object.keys(spans)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(spans, '__proto__')!.value.span_id).toBe('3333333333333333');
  });

  it('places every span of a parent cycle once, from the earliest', async () => {
    const X = '1111111111111111', Y = '2222222222222222';
    const trace = '11111111111111111111111111111111';
    await store.export(ingested([
      { trace_id: trace, span_id: X, parent_id: Y, span_name: 'x', start_time: 1776363498, end_time: 1776363499 },
      { trace_id: trace, span_id: Y, parent_id: X, span_name: 'y', start_time: 1776363497, end_time: 1776363499 },
    ]));
    const map = reads.getTrace('', trace) as { spans: Record<string, Node> };
    expect(Object.keys(map.spans)).toEqual(['y']);
    expect((map.spans.y.spans!.x as Node).span_id).toBe(X);
  });
});

describe('delete a trace (§5.2, §12 test 22)', () => {
  it('deletes every span, links in pre-order; again deletes nothing', () => {
    expect(reads.deleteTrace('', T).map((l) => l.span_id)).toEqual([D, A, B, C, E]);
    expect(reads.getTrace('', T)).toBeUndefined();
    expect(reads.deleteTrace('', T)).toEqual([]);
    expect(reads.deleteTrace('', T2)).toEqual([{ trace_id: T2, span_id: G }]);
  });
});

describe('flat query (§6, §12)', () => {
  it('test 7: focus span by name, newest first', async () => {
    const r = await query({ focus: 'span', filter: { conditions: [{ field: 'span_name', value: 'llm' }] } });
    expect(r.count).toBe(2);
    expect((r.spans as Array<{ span_id: string }>).map((s) => s.span_id)).toEqual([C, B]);
  });

  it('test 8: focus trace returns every span of a matching trace', async () => {
    const r = await query({ filter: { conditions: [{ field: 'status_code', value: 'STATUS_CODE_ERROR' }] } });
    expect(r.count).toBe(1);
    const traces = r.traces as Record<string, { spans: Record<string, Node | Node[]> }>;
    expect(Object.keys(traces)).toEqual([T]);
    expect(JSON.stringify(traces[T])).toBe(JSON.stringify(reads.getTrace('', T)));
  });

  it('test 9: or over an attribute and a case-insensitive startswith', async () => {
    const conditions = [{ field: 'attributes', key: 'score', operator: 'gt', value: 0.5 }, { field: 'span_name', operator: 'startswith', value: 'CH' }];
    expect(await spanIds({ focus: 'span', filter: { operator: 'or', conditions } })).toEqual([G, B]);
    const sensitive = [conditions[0], { ...conditions[1], options: { case_sensitive: true } }];
    expect(await spanIds({ focus: 'span', filter: { operator: 'or', conditions: sensitive } })).toEqual([B]);
  });

  it('test 10: string attributes compare as strings', async () => {
    const c = (operator: string) => ({ focus: 'span', filter: { conditions: [{ field: 'attributes', key: 'tags.created_at', operator, value: '2026-04-16T09:00:00Z' }] } });
    expect(await spanIds(c('gt'))).toEqual([G]);
    expect(await query(c('lt'))).toEqual({ count: 0, spans: [] });
  });

  it('test 11: roots by parent_id not_exists, or is without a value', async () => {
    expect(await spanIds({ focus: 'span', filter: { conditions: [{ field: 'parent_id', operator: 'not_exists' }] } })).toEqual([G, E, A]);
    expect(await spanIds({ focus: 'span', filter: { conditions: [{ field: 'parent_id', operator: 'is' }] } })).toEqual([G, E, A]);
  });

  it('test 12: the window, newest exclusive', async () => {
    expect(await spanIds({ focus: 'span', oldest: '2026-04-16T18:18:19Z', newest: 1776363501 })).toEqual([C]);
    expect(await spanIds({ focus: 'span', oldest: 1776363501, newest: 1776363501 })).toEqual([]);
  });

  it('test 13: limit counts spans or traces; out of range is 422', async () => {
    expect(await spanIds({ focus: 'span', limit: 1 })).toEqual([G]);
    expect(Object.keys((await query({ limit: 1 })).traces as object)).toEqual([T2]);
    for (const limit of [0, 10_001]) expect(problems({ limit })).toEqual([expect.objectContaining({ loc: ['body', 'limit'], type: 'range' })]);
  });

  it('test 14: unknown keys and a filter string that is not JSON', async () => {
    expect(problems({ filtering: {} })).toEqual([{
      loc: ['body', 'filtering'], type: 'extra_forbidden',
      msg: "Unknown key 'filtering'; allowed: focus, format, oldest, newest, limit, interval, rate, filter",
    }]);
    expect(problems({ filter: '{bad' })).toEqual([expect.objectContaining({ loc: ['body', 'filter'], type: 'json_invalid' })]);
    expect(await spanIds({ focus: 'span', filter: JSON.stringify({ conditions: [{ field: 'span_name', value: 'chat' }] }) })).toEqual([G]);
  });

  it('test 15: not_supported fields, operators and keys', async () => {
    const one = (condition: object) => problems({ filter: { conditions: [condition] } });
    expect(one({ field: 'content', value: 'x' })).toEqual([expect.objectContaining({ loc: ['body', 'filter', 'conditions', 0, 'field'], type: 'not_supported' })]);
    expect(one({ field: 'span_name', operator: 'matches', value: 'x' })).toEqual([expect.objectContaining({ type: 'not_supported' })]);
    expect(one({ field: 'trace_id', operator: 'gt', value: T })).toEqual([expect.objectContaining({ loc: ['body', 'filter', 'conditions', 0, 'operator'], type: 'not_supported' })]);
    expect(one({ field: 'span_name', key: 'x', value: 'x' })).toEqual([expect.objectContaining({ loc: ['body', 'filter', 'conditions', 0, 'key'], type: 'not_supported' })]);
  });

  it('test 16: value_error, enum and invalid_id', async () => {
    const one = (condition: object) => problems({ filter: { conditions: [condition] } })[0];
    expect(problems({ filter: { operator: 'not', conditions: [{ field: 'span_name', value: 'a' }, { field: 'span_name', value: 'b' }] } })[0])
      .toMatchObject({ loc: ['body', 'filter', 'conditions'], type: 'value_error' });
    expect(one({ field: 'start_time', operator: 'btwn', value: [1776363498] })).toMatchObject({ loc: ['body', 'filter', 'conditions', 0, 'value'], type: 'value_error' });
    expect(one({ field: 'span_name', operator: 'exists', value: 'x' })).toMatchObject({ type: 'value_error' });
    expect(one({ field: 'span_kind', value: 'SERVER' })).toMatchObject({ loc: ['body', 'filter', 'conditions', 0, 'value'], type: 'enum' });
    expect(problems({ focus: 'tree' })[0]).toMatchObject({ loc: ['body', 'focus'], type: 'enum' });
    expect(one({ field: 'trace_id', operator: 'in', value: ['abc'] })).toMatchObject({ loc: ['body', 'filter', 'conditions', 0, 'value', 0], type: 'invalid_id' });
  });

  it('test 17: a lone trace_id condition in any id form is windowed like any filter', async () => {
    const body = { focus: 'span', filter: { conditions: [{ field: 'trace_id', operator: 'in', value: ['4bf92f35-77b3-4da6-a3ce-929d0e0e4736'] }] } };
    expect(await spanIds(body)).toEqual([E, C, B, A, D]);
    expect(await spanIds({ ...body, limit: 2, newest: '2026-04-16T18:18:19Z' })).toEqual([B, A]);
  });

  it('test 18: format opentelemetry gives a flat list with flat attributes', async () => {
    const r = await query({ format: 'opentelemetry' });
    const spans = r.spans as Array<{ span_id: string; attributes: Record<string, unknown> }>;
    expect(r.count).toBe(6);
    expect(spans.map((s) => s.span_id).sort()).toEqual([A, B, C, D, E, G].sort());
    expect(spans.find((s) => s.span_id === A)!.attributes['ag.data.inputs.q']).toBe('hi');
  });

  it('test 19: rate samples traces; interval has no effect', async () => {
    expect(await query({ rate: 0 })).toEqual({ count: 0, traces: {} });
    expect((await query({ rate: 1 })).count).toBe(2);
    expect(await query({ interval: 60 })).toEqual(await query({}));
    // 0x4bf92f35 % 100 = 49, 0x0af76519 % 100 = 33: at 0.4 only T2 is kept, at 0.5 both.
    expect(Object.keys((await query({ rate: 0.4 })).traces as object)).toEqual([T2]);
    expect(Object.keys((await query({ rate: 0.5 })).traces as object)).toEqual([T2, T]);
    // Focus span samples by trace too: the spans of the kept traces.
    expect(await spanIds({ focus: 'span', rate: 0.4 })).toEqual([G]);
    expect(await spanIds({ focus: 'span', rate: 0.5 })).toEqual([G, E, C, B, A, D]);
    expect(await spanIds({ focus: 'span', rate: 0 })).toEqual([]);
    expect(Object.keys((await query({})).traces as object)).toEqual([T2, T]);
  });

  it('negations match spans without the field; not, nand and nor', async () => {
    expect(await spanIds({ focus: 'span', filter: { conditions: [{ field: 'attributes', key: 'score', operator: 'is_not', value: 0.9 }] } })).toEqual([G, E, C, A, D]);
    expect(await spanIds({ focus: 'span', filter: { operator: 'not', conditions: [{ field: 'span_name', operator: 'in', value: ['llm', 'agent', 'late'] }] } })).toEqual([G, E]);
    expect(await spanIds({ focus: 'span', filter: { operator: 'nor', conditions: [{ field: 'span_name', value: 'llm' }, { field: 'span_name', value: 'chat' }] } })).toEqual([E, A, D]);
    expect(await spanIds({ focus: 'span', filter: { operator: 'nand', conditions: [{ field: 'span_name', value: 'llm' }, { field: 'status_code', value: 'STATUS_CODE_ERROR' }] } })).toEqual([G, E, B, A, D]);
  });

  it('attribute containment with an object, exists on a prefix, times between', async () => {
    expect(await spanIds({ focus: 'span', filter: { conditions: [{ field: 'attributes', key: 'ag', value: { data: { inputs: { q: 'hi' } } } }] } })).toEqual([A]);
    expect(await spanIds({ focus: 'span', filter: { conditions: [{ field: 'attributes', key: 'ag.data', operator: 'exists' }] } })).toEqual([A]);
    expect(await spanIds({ focus: 'span', filter: { conditions: [{ field: 'end_time', operator: 'btwn', value: ['2026-04-16T18:18:19Z', '2026-04-16T18:18:20Z'] }] } })).toEqual([C, B, A]);
    expect(await spanIds({ focus: 'span', filter: { conditions: [{ field: 'span_kind', value: 'SPAN_KIND_UNSPECIFIED' }, { field: 'span_type', operator: 'in', value: ['llm'] }] } })).toEqual([B]);
  });
});

describe('query_timeout (§9.2)', () => {
  it('abandons a query that runs past its deadline', async () => {
    await store.export(ingested(Array.from({ length: 600 }, (_, i) => ({
      trace_id: T2, span_id: (i + 16).toString(16).padStart(16, '0'), span_name: 'bulk', start_time: 1776363000 + i, end_time: 1776363000 + i,
    }))));
    const q = parseFlatQuery({ focus: 'span', filter: { conditions: [{ field: 'attributes', key: 'nowhere', operator: 'exists' }] } }, LIMITS) as FlatQuery;
    await expect(reads.query('', q, 1e-9)).rejects.toThrow(QueryTimeoutError);
    expect(await reads.query('', q)).toEqual({ count: 0, spans: [] });
  });

  it('lets writes through while a long query scans (its own connection, pauses between rows)', async () => {
    await store.export(ingested(Array.from({ length: 2000 }, (_, i) => ({
      trace_id: T2, span_id: (i + 16).toString(16).padStart(16, '0'), span_name: 'bulk', start_time: 1776363000 + i, end_time: 1776363000 + i,
    }))));
    const finished: string[] = [];
    const q = parseFlatQuery({ focus: 'span', limit: 10_000, filter: { conditions: [{ field: 'attributes', key: 'nowhere', operator: 'not_exists' }] } }, LIMITS) as FlatQuery;
    const scan = reads.query('', q).then((r) => { finished.push('query'); return r; });
    await store.export(ingested([{ trace_id: '33333333333333333333333333333333', span_id: '4444444444444444', span_name: 'late', start_time: 1776363000, end_time: 1776363001 }]));
    finished.push('export');
    const result = await scan;
    expect(finished).toEqual(['export', 'query']);
    // The query reads the snapshot it began with: the span written meanwhile is not in it.
    expect(result.count).toBe(2006);
  });
});
