// Simple traces end to end (read-api.md §8, §12 tests 23-29): a real daemon (the built CLI) with a store;
// simple traces written with POST /simple/traces/, read, edited, queried and deleted over HTTP. The
// tests share one daemon and run in order: 25-28 work on the trace S that 24 writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../test/helpers/daemon.ts';
import { FIXTURE_F, T, T2, STORE_DAEMON_CONFIG, TEST_23, TEST_24 } from '../../test/helpers/store-fixture.ts';

const CONFIG = STORE_DAEMON_CONFIG;

let daemon: Daemon;
let base: string;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** Polls GET /simple/traces/{id} until `ready` holds (§2.5: reads follow the store's commits). */
async function simpleOnce(traceId: string, ready: (trace: any) => boolean = () => true): Promise<any> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const r = await call('GET', `/simple/traces/${traceId}`);
    if ((r.json.count === 1 && ready(r.json.trace)) || Date.now() > deadline) return r.json.trace;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let S23: string;
let S: string;
let sSpan: string;

beforeAll(async () => {
  daemon = await startDaemon(CONFIG);
  base = daemon.url('http');
  expect((await call('POST', '/tracing/spans/ingest', { spans: FIXTURE_F })).status).toBe(202);
  await simpleOnce(T);
  await simpleOnce(T2);
});
afterAll(async () => {
  await daemon?.stop();
});

describe('simple traces on a daemon with a store', () => {
  it('test 23: every enum, data and a list of links read back as sent', async () => {
    const res = await call('POST', '/simple/traces/', { trace: TEST_23 });
    expect(res.status).toBe(202);
    S23 = res.json.trace.trace_id;
    const trace = await simpleOnce(S23);
    expect(trace).toMatchObject({ trace_id: S23, span_id: res.json.trace.span_id, ...TEST_23 });
    const span = Object.values((await call('GET', `/tracing/traces/${S23}`)).json.traces[S23].spans)[0] as any;
    expect(span.attributes.ag.flags).toEqual({ is_playground: true, is_otlp: true });
  });

  it('test 24: a links map, both references, origin custom, the span named after the evaluator', async () => {
    const res = await call('POST', '/simple/traces/', { trace: TEST_24 });
    S = res.json.trace.trace_id;
    sSpan = res.json.trace.span_id;
    const trace = await simpleOnce(S);
    expect(trace.links).toEqual(TEST_24.links);
    expect(trace.references).toEqual(TEST_24.references);
    expect(trace.origin).toBe('custom');
    expect(Object.keys((await call('GET', `/tracing/traces/${S}`)).json.traces[S].spans)).toEqual(['user-feedback']);
  });

  // The second and third PATCH change nothing, so they answer the stored `updated_at` (see handler.ts).
  it('test 25: PATCH through the three routes changes tags only; GET agrees once delivered', async () => {
    const original = (await call('GET', `/tracing/traces/${S}`)).json.traces[S].spans['user-feedback'];
    for (const path of [`/simple/traces/${S}`, `/tracing/traces/${S}`, `/preview/tracing/traces/${S}`]) {
      const before = await simpleOnce(S);
      const res = await call('PATCH', path, { trace: { tags: { reviewed: true } } });
      expect(res.status).toBe(200);
      expect(res.json.count).toBe(1);
      const edited = res.json.trace;
      expect(edited.tags).toEqual({ reviewed: true });
      expect([edited.data, edited.references, edited.links]).toEqual([before.data, before.references, before.links]);
      expect(edited.updated_at).toMatch(/Z$/);
      const read = await simpleOnce(S, (t) => t.updated_at !== undefined && Date.parse(t.updated_at) >= Date.parse(edited.updated_at));
      const { updated_at, ...rest } = read;
      const { updated_at: answered, ...expected } = edited;
      expect(rest).toEqual(expected);
      expect(Date.parse(updated_at)).toBeGreaterThanOrEqual(Date.parse(answered));
    }
    const span = (await call('GET', `/tracing/traces/${S}`)).json.traces[S].spans['user-feedback'];
    expect([span.span_name, span.start_time, span.end_time]).toEqual([original.span_name, original.start_time, original.end_time]);
  });

  it('test 26: empty tags clear them; origin human sets is_feedback, drops is_custom', async () => {
    expect((await call('PATCH', `/simple/traces/${S}`, { trace: { tags: {} } })).json.trace).not.toHaveProperty('tags');
    await simpleOnce(S, (t) => t.tags === undefined);
    expect((await call('PATCH', `/simple/traces/${S}`, { trace: { origin: 'human' } })).json.trace.origin).toBe('human');
    await simpleOnce(S, (t) => t.origin === 'human');
    const flags = (await call('GET', `/tracing/traces/${S}`)).json.traces[S].spans['user-feedback'].attributes.ag.flags;
    expect(flags.is_feedback).toBe(true);
    expect(flags).not.toHaveProperty('is_custom');
  });

  it('test 27: unknown traces count 0, a bad id 400, a bad enum 422', async () => {
    const unknown = '/simple/traces/0123456789abcdef0123456789abcdef';
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      expect(await call(method, unknown, method === 'PATCH' ? { trace: {} } : undefined)).toEqual({ status: 200, json: { count: 0 } });
      expect(await call(method, '/simple/traces/xyz', method === 'PATCH' ? { trace: {} } : undefined))
        .toEqual({ status: 400, json: { detail: 'Invalid trace_id.' } });
    }
    const bad = await call('PATCH', `/simple/traces/${S}`, { trace: { kind: 'x' } });
    expect(bad.status).toBe(422);
    expect(bad.json.detail).toMatchObject([{ loc: ['body', 'trace', 'kind'], type: 'enum' }]);
  });

  // The second PATCH is sent as soon as the first answers, while the batch processor still holds the first
  // edit: it waits until the store has it and starts from it, so neither part is lost.
  it('two PATCHes back to back, tags then meta: a GET after both shows both', async () => {
    const first = await call('PATCH', `/simple/traces/${S23}`, { trace: { tags: { reviewed: true } } });
    const second = await call('PATCH', `/simple/traces/${S23}`, { trace: { meta: { score: 3 } } });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.json.trace).toMatchObject({ tags: { reviewed: true }, meta: { score: 3 } });
    const trace = await simpleOnce(S23, (t) => t.meta !== undefined);
    expect(trace).toMatchObject({ tags: { reviewed: true }, meta: { score: 3 }, ...TEST_23 });
  });

  it('test 29: the simple query by links, top-level links and origin; 422 for an unknown key', async () => {
    const ids = async (body: unknown) => (await call('POST', '/simple/traces/query', body)).json.traces.map((t: any) => t.trace_id);
    expect(await ids({ trace: { links: { invocation: { trace_id: T } } } })).toEqual([S]);
    expect((await call('POST', '/simple/traces/query', { links: [{ trace_id: S, span_id: '0000000000000001' }] })).json).toEqual({ count: 0, traces: [] });
    expect((await ids({ trace: { origin: 'auto' } })).sort()).toEqual([S23, T, T2].sort());
    const bad = await call('POST', '/simple/traces/query', { trace: { colour: 1 } });
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0]).toMatchObject({ loc: ['body', 'trace', 'colour'], type: 'extra_forbidden' });
  });

  it('test 28: DELETE names the head once, then nothing', async () => {
    expect(await call('DELETE', `/simple/traces/${S}`)).toEqual({ status: 200, json: { count: 1, link: { trace_id: S, span_id: sSpan } } });
    expect(await call('DELETE', `/simple/traces/${S}`)).toEqual({ status: 200, json: { count: 0 } });
  });
});

describe('an edit on a receiver whose pipelines do not reach the store (§8.3 step 3)', () => {
  const SPLIT = `
receivers:
  http:
    endpoint: 127.0.0.1:0
  http/fed:
    endpoint: 127.0.0.1:0
exporters:
  stdout: {}
  store: {}
service:
  pipelines:
    traces/unfed:
      receivers: [http]
      exporters: [stdout]
    traces/fed:
      receivers: [http/fed]
      exporters: [store]
`;
  it('answers 501 there, and edits through the receiver that feeds the store', async () => {
    const split = await startDaemon(SPLIT);
    try {
      const path = '/simple/traces/0123456789abcdef0123456789abcdef';
      const body = JSON.stringify({ trace: { tags: { a: 'b' } } });
      const headers = { 'content-type': 'application/json' };
      const unfed = await fetch(split.url('http') + path, { method: 'PATCH', headers, body });
      expect(unfed.status).toBe(501);
      expect(((await unfed.json()) as { detail: string }).detail).toMatch(/not fed by this receiver/);
      const fed = await fetch(split.url('http/fed') + path, { method: 'PATCH', headers, body });
      expect([fed.status, await fed.json()]).toEqual([200, { count: 0 }]);
    } finally {
      await split.stop();
    }
  });
});
