// The read routes end to end (read-api.md §5, §6, §12): a real daemon (the built CLI) with a store,
// spans POSTed to /tracing/spans/ingest, read back over HTTP. Keys of two projects (api_keys extension).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../test/helpers/daemon.ts';
import { A, B, C, D, E, FIXTURE_F, T, T2 } from '../../test/helpers/store-fixture.ts';
import { queryTraceIds } from './read-routes.ts';
import { READ_ROUTES } from '../../test/helpers/store-fixture.ts';

const K1 = 'key-project-one';
const K2 = 'key-project-two';
const CONFIG = `
extensions:
  api_keys:
    keys: [{key: ${K1}, project: p1}, {key: ${K2}, project: p2}]
receivers:
  http:
    endpoint: 127.0.0.1:0
    auth: {authenticator: api_keys}
processors:
  batch: {timeout: 10ms}
exporters:
  store: {}
service:
  extensions: [api_keys]
  pipelines:
    traces:
      receivers: [http]
      processors: [namespace, batch]
      exporters: [store]
`;

let daemon: Daemon;
let base: string;

async function call(method: string, path: string, options: { key?: string | null; body?: unknown } = {}): Promise<{ status: number; json: any; headers: Headers }> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? K1 : options.key;
  if (key !== null) headers.authorization = `ApiKey ${key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** Polls until the store shows `traceId` with `spans` spans (§2.5: reads follow the store's commits). */
async function stored(traceId: string, spans: number, key = K1): Promise<any> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const r = await call('POST', '/tracing/spans/query', { key, body: { focus: 'span', filter: { conditions: [{ field: 'trace_id', value: traceId }] } } });
    if (r.json?.count === spans || Date.now() > deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  daemon = await startDaemon(CONFIG);
  base = daemon.url('http');
});
afterAll(async () => {
  await daemon?.stop();
});

describe('read routes on a daemon with a store', () => {
  it('GET /tracing/traces/{id} gives back what POST /tracing/spans/ingest wrote (§12 tests 1-3)', async () => {
    expect((await call('POST', '/tracing/spans/ingest', { body: { spans: FIXTURE_F } })).status).toBe(202);
    expect((await stored(T, 5)).json.count).toBe(5);
    expect((await stored(T2, 1)).json.count).toBe(1);
    const r = await call('GET', `/tracing/traces/${T}`);
    expect(r.status).toBe(200);
    expect(r.json.count).toBe(1);
    const spans = r.json.traces[T].spans;
    expect(Object.keys(spans)).toEqual(['late', 'agent', 'feedback']);
    expect(spans.agent.spans.llm.map((s: { span_id: string }) => s.span_id)).toEqual([B, C]);
    expect(spans.late.parent_id).toBe('d1b2c3d4e5f60718');
    expect(spans.agent.attributes.ag.data.inputs.q).toBe('hi');
    expect(spans.agent.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/);
    for (const alias of ['/api/api/preview/tracing/traces/4BF92F35-77B3-4DA6-A3CE-929D0E0E4736/', '/tracing/traces/urn%3Auuid%3A%7B4bf92f35-77b3-4da6-a3ce-929d0e0e4736%7D']) {
      expect((await call('GET', alias)).json).toEqual(r.json);
    }
    expect(await call('GET', '/tracing/traces/0123456789abcdef0123456789abcdef')).toMatchObject({ status: 200, json: { count: 0 } });
    expect(await call('GET', '/tracing/traces/xyz')).toMatchObject({ status: 400, json: { detail: 'Invalid trace_id.' } });
  });

  it('scopes reads to the key\'s project, and answers 401 without a key (§12 tests 31, 35)', async () => {
    await stored(T, 5);
    expect((await call('GET', `/tracing/traces/${T}`, { key: K2 })).json).toEqual({ count: 0 });
    expect(await call('DELETE', `/tracing/traces/${T}`, { key: K2 })).toMatchObject({ status: 202, json: { count: 0, links: [] } });
    expect((await call('GET', `/tracing/traces/${T}`)).json.count).toBe(1);
    for (const [method, path] of [['GET', `/tracing/traces/${T}`], ['DELETE', `/tracing/traces/${T}`], ['POST', '/tracing/spans/query']]) {
      expect((await call(method, path, { key: null })).status).toBe(401);
    }
  });

  it('POST /tracing/spans/query: focus span and trace, 422 for unknown keys (§12 tests 7, 8, 14)', async () => {
    await stored(T, 5);
    const bySpan = await call('POST', '/tracing/spans/query', { body: { focus: 'span', filter: { conditions: [{ field: 'span_name', value: 'llm' }] } } });
    expect(bySpan.status).toBe(200);
    expect(bySpan.json.spans.map((s: { span_id: string }) => s.span_id)).toEqual([C, B]);
    const byTrace = await call('POST', '/tracing/spans/query', { body: { filter: { conditions: [{ field: 'status_code', value: 'STATUS_CODE_ERROR' }] } } });
    expect(Object.keys(byTrace.json.traces)).toEqual([T]);
    expect(byTrace.json.traces[T]).toEqual((await call('GET', `/tracing/traces/${T}`)).json.traces[T]);
    const unknown = await call('POST', '/tracing/spans/query', { body: { filtering: {} } });
    expect(unknown.status).toBe(422);
    expect(unknown.json.detail[0]).toMatchObject({ loc: ['body', 'filtering'], type: 'extra_forbidden' });
    expect((await call('POST', '/tracing/spans/query', { body: {} })).json.count).toBe(2);
  });

  it('simple traces are scoped like every read: another project reads, edits and deletes nothing (§2.4, §8)', async () => {
    const written = await call('POST', '/simple/traces/', { body: { trace: { data: { outputs: 'ok' } } } });
    const id = written.json.trace.trace_id;
    const deadline = Date.now() + 20_000;
    while ((await call('GET', `/simple/traces/${id}`)).json.count !== 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect((await call('GET', `/simple/traces/${id}`, { key: K2 })).json).toEqual({ count: 0 });
    expect((await call('PATCH', `/simple/traces/${id}`, { key: K2, body: { trace: { tags: { a: 'b' } } } })).json).toEqual({ count: 0 });
    expect((await call('DELETE', `/simple/traces/${id}`, { key: K2 })).json).toEqual({ count: 0 });
    expect((await call('POST', '/simple/traces/query', { key: K2, body: {} })).json.traces.map((t: any) => t.trace_id)).not.toContain(id);
    const edited = await call('PATCH', `/tracing/traces/${id}`, { body: { trace: { tags: { a: 'b' } } } });
    expect(edited.json.trace).toMatchObject({ trace_id: id, tags: { a: 'b' }, data: { outputs: 'ok' } });
    while ((await call('GET', `/simple/traces/${id}`)).json.trace.tags === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect((await call('GET', `/simple/traces/${id}`)).json.trace.tags).toEqual({ a: 'b' });
    expect((await call('GET', `/simple/traces/${id}`, { key: K2 })).json).toEqual({ count: 0 });
    for (const [method, path] of [['GET', `/simple/traces/${id}`], ['PATCH', `/simple/traces/${id}`], ['POST', '/simple/traces/query'], ['POST', '/spans/query']]) {
      expect((await call(method, path, { key: null })).status).toBe(401);
    }
  });

  it('POST /spans/query and POST /traces/query: windowing and filtering (§7, §12 tests 15, 20, 21)', async () => {
    await stored(T, 5);
    const spans = await call('POST', '/spans/query', { body: { filtering: { conditions: [{ field: 'span_name', value: 'llm' }] }, windowing: { order: 'ascending' } } });
    expect(spans.status).toBe(200);
    expect(spans.json.spans.map((s: { span_id: string }) => s.span_id)).toEqual([B, C]);
    const page = await call('POST', '/api/spans/query', { body: { windowing: { limit: 2, newest: '2026-04-16T18:18:21Z', next: E } } });
    expect(page.json.spans.map((s: { span_id: string }) => s.span_id)).toEqual([C, B]);
    // Bounded to the fixture's day: the simple trace of the test before starts now.
    const traces = await call('POST', '/traces/query', { body: { windowing: { limit: 1, newest: '2026-04-17T00:00:00Z' } } });
    expect(traces.status).toBe(200);
    expect(traces.json.count).toBe(1);
    expect(traces.json.traces[0].trace_id).toBe(T2);
    const saved = await call('POST', '/traces/query', { body: { query_ref: { slug: 'q' } } });
    expect(saved.status).toBe(422);
    expect(saved.json.detail[0]).toMatchObject({ loc: ['body', 'query_ref'], type: 'not_supported' });
  });

  it('test 35: with a store every §1.3 route is 501, and with auth on every §1.2 route without a key is 401', async () => {
    const id = '0123456789abcdef0123456789abcdef';
    const unserved = [
      ['PUT', `/tracing/traces/${id}`], ['PUT', `/traces/${id}`], ['POST', '/traces/'], ['POST', '/traces/ingest'],
      ['POST', '/tracing/spans/analytics'], ['POST', '/tracing/analytics/query'], ['POST', '/tracing/sessions/query'],
      ['POST', '/tracing/users/query'], ['GET', '/spans/'], ['GET', `/spans/${id}/0123456789abcdef`],
      ['POST', '/spans/analytics/query'], ['POST', '/spans/sessions/query'], ['POST', '/spans/users/query'],
    ];
    for (const [method, path] of unserved) {
      const r = await call(method, path, method === 'GET' ? {} : { body: {} });
      expect([method, path, r.status]).toEqual([method, path, 501]);
    }
    for (const [method, path] of READ_ROUTES) {
      const r = await call(method, path.replace('{id}', id), { key: null, ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }) });
      expect([method, path, r.status]).toEqual([method, path, 401]);
    }
  });

  it('routes the store does not serve stay 501, other methods 405 (§1.3, §1.4)', async () => {
    expect((await call('PUT', `/tracing/traces/${T}`, { body: {} })).status).toBe(501);
    expect((await call('POST', '/tracing/spans/analytics', { body: {} })).status).toBe(501);
    const post = await call('POST', `/tracing/traces/${T}`);
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, PUT, PATCH, DELETE');
  });

  it('DELETE removes the trace, links in pre-order; posting the read trace map back restores the records (§12 tests 4, 22)', async () => {
    await stored(T, 5);
    const before = (await call('GET', `/tracing/traces/${T}`)).json;
    const deleted = await call('DELETE', `/tracing/traces/${T}`);
    expect(deleted.status).toBe(202);
    expect(deleted.json).toEqual({ count: 5, links: [D, A, B, C, E].map((span_id) => ({ trace_id: T, span_id })) });
    expect((await call('GET', `/tracing/traces/${T}`)).json).toEqual({ count: 0 });
    expect(await call('DELETE', `/tracing/traces/${T}`)).toMatchObject({ status: 202, json: { count: 0, links: [] } });

    expect((await call('POST', '/tracing/spans/ingest', { body: { traces: before.traces } })).status).toBe(202);
    await stored(T, 5);
    const after = (await call('GET', `/tracing/traces/${T}`)).json;
    const withoutTimes = (v: unknown) => JSON.parse(JSON.stringify(v, (k, x) => (k === 'created_at' || k === 'updated_at' ? undefined : x)));
    expect(withoutTimes(after)).toEqual(withoutTimes(before));
  });

  it('the /traces router: GET /traces/{id}, GET /traces/?trace_id=.., DELETE /traces/{id} (§12 tests 5, 6, 22, 31, 35)', async () => {
    await stored(T, 5);
    await stored(T2, 1);
    const tracing = (await call('GET', `/tracing/traces/${T}`)).json;
    const one = await call('GET', `/traces/${T}`);
    expect(one.status).toBe(200);
    expect(one.json).toEqual({ count: 1, trace: { trace_id: T, spans: tracing.traces[T].spans } });
    expect(Object.keys(one.json.trace)).toEqual(['trace_id', 'spans']);
    expect((await call('GET', '/api/preview/traces/4BF92F35-77B3-4DA6-A3CE-929D0E0E4736/')).json).toEqual(one.json);
    expect(await call('GET', '/traces/0123456789abcdef0123456789abcdef')).toMatchObject({ status: 200, json: { count: 0 } });
    expect(await call('GET', '/traces/xyz')).toMatchObject({ status: 400, json: { detail: 'Invalid trace_id.' } });
    expect(await call('GET', '/traces/query')).toMatchObject({ status: 405, json: { detail: 'GET /traces/query is not supported.' } });

    const both = await call('GET', `/traces/?trace_id=${T2}&trace_ids=${T},${T2}`);
    expect(both.status).toBe(200);
    expect(both.json.count).toBe(2);
    expect(both.json.traces.map((t: { trace_id: string }) => t.trace_id)).toEqual([T2, T]);
    expect(both.json.traces[1]).toEqual(one.json.trace);
    const unknownSkipped = await call('GET', `/traces?trace_ids=,%20${T}%20,,0123456789abcdef0123456789abcdef`);
    expect(unknownSkipped.json.traces.map((t: { trace_id: string }) => t.trace_id)).toEqual([T]);
    expect(await call('GET', '/traces/')).toMatchObject({ status: 400, json: { detail: 'At least one trace_id query parameter is required.' } });
    expect(await call('GET', `/traces/?trace_id=${T}&trace_id=xyz`)).toMatchObject({ status: 400, json: { detail: 'Invalid trace_id.' } });

    // Another project's key sees nothing and deletes nothing; no key is a 401.
    expect((await call('GET', `/traces/${T}`, { key: K2 })).json).toEqual({ count: 0 });
    expect((await call('GET', `/traces/?trace_id=${T}`, { key: K2 })).json).toEqual({ count: 0, traces: [] });
    expect(await call('DELETE', `/traces/${T}`, { key: K2 })).toMatchObject({ status: 202, json: { count: 0 } });
    expect((await call('GET', `/traces/${T}`)).json.count).toBe(1);
    for (const [method, path] of [['GET', `/traces/${T}`], ['DELETE', `/traces/${T}`], ['GET', `/traces/?trace_id=${T}`]]) {
      expect((await call(method, path, { key: null })).status).toBe(401);
    }

    const deleted = await call('DELETE', `/traces/${T2}`);
    expect(deleted).toMatchObject({ status: 202, json: { count: 1, trace_id: T2 } });
    expect((await call('GET', `/traces/${T2}`)).json).toEqual({ count: 0 });
    expect(await call('DELETE', `/traces/${T2}`)).toMatchObject({ status: 202, json: { count: 0 } });
    // Back as it was for any test after this one.
    expect((await call('POST', '/tracing/spans/ingest', { body: { spans: FIXTURE_F.filter((s) => s.trace_id === T2) } })).status).toBe(202);
    expect((await stored(T2, 1)).json.count).toBe(1);
  });
});

describe('the ids of GET /traces/ (§5.3)', () => {
  const U = '0123456789abcdef0123456789abcdef';
  it('takes trace_id parameters, then trace_ids entries, normalised, first appearance wins', () => {
    expect(queryTraceIds(`/traces/?trace_ids=${T2}, ${U.toUpperCase()} ,,&trace_id=${T}&trace_id=${T2}`, 10)).toEqual([T, T2, U]);
  });
  it('answers 400 for no id, an invalid id, or more than max_limit ids', () => {
    const detail = (r: unknown) => JSON.parse((r as { body: string }).body).detail;
    expect(detail(queryTraceIds('/traces/?trace_ids=,,', 10))).toBe('At least one trace_id query parameter is required.');
    expect(detail(queryTraceIds(`/traces/?trace_ids=${T},nope`, 10))).toBe('Invalid trace_id.');
    expect(detail(queryTraceIds(`/traces/?trace_ids=${T},${T2},${U}`, 2))).toBe('Too many trace ids: at most 2.');
    expect(queryTraceIds(`/traces/?trace_ids=${T},${T2},${T}`, 2)).toEqual([T, T2]);
  });
});
