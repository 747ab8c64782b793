// The PATCH of a simple trace (read-api.md §8.3) through ReadRoutes over a real store and real HTTP on
// loopback; the write side is a recording EditWriter (the real span checks, an append that keeps what it
// was given), to see what the edit hands the ingest stream.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { TracingSpans } from '../../codec/tracing/spans.ts';
import { StoreExporter } from '../../exporters/store/store-exporter.ts';
import type { WorkingBatch } from '../../model/batch.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { FIXTURE_F, T, ingested } from '../../test/helpers/store-fixture.ts';
import { httpDefaults } from '../../test/helpers/http-receiver-config.ts';
import type { HttpReceiverConfig } from './config.ts';
import { ReadRoutes } from './read-routes.ts';

let dir: string;
let store: StoreExporter;
let server: Server;
let base: string;
const appended: Array<{ batch: WorkingBatch; wireBytes: number }> = [];

beforeEach(async () => {
  appended.length = 0;
  dir = await mkdtemp(join(tmpdir(), 'tracehop-edit-'));
  store = new StoreExporter({ path: join(dir, 'store.db'), maxBytes: 1 << 30, maxAge: 0, pruneInterval: 60_000, logger: silentLogger });
  await store.start();
  await store.export(ingested(FIXTURE_F));
  await serve(httpDefaults);
});

/** Serves the PATCH of ReadRoutes with `config` over the store on a fresh port. */
async function serve(config: HttpReceiverConfig): Promise<void> {
  const spans = new TracingSpans();
  const routes = new ReadRoutes(config, { reads: () => store.reads(), storeFed: () => true }, {
    check: (span) => spans.check({ form: 'flat', spans: [span] }),
    append: async (batch, wireBytes) => {
      appended.push({ batch, wireBytes });
      return undefined;
    },
  });
  server = createServer((req, res) => {
    void routes.answer('simple_patch', req.url!.split('/').pop(), req, undefined).then((reply) => {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
  await store.shutdown();
  await rm(dir, { recursive: true, force: true });
});

it('hands the stream the request body size in bytes, not the stored record length', async () => {
  // Trailing whitespace and a character of two UTF-8 bytes: the body's bytes, whatever the record's size.
  const body = JSON.stringify({ trace: { tags: { note: 'vérifié' } } }) + ' '.repeat(3000);
  const res = await fetch(`${base}/simple/traces/${T}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { trace: { tags: unknown } }).trace.tags).toEqual({ note: 'vérifié' });
  expect(appended).toHaveLength(1);
  expect(appended[0].wireBytes).toBe(Buffer.byteLength(body));
});

it('checks the path id and the body before the store: 400, 422', async () => {
  const patch = (path: string, body: unknown) => fetch(base + path, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect((await patch('/simple/traces/xyz', { trace: {} })).status).toBe(400);
  expect((await patch(`/simple/traces/${T}`, { trace: { kind: 'x' } })).status).toBe(422);
  expect(appended).toHaveLength(0);
});

// The write side here delivers only when the test says so: the second PATCH is sent while the first edit
// is still on its way to the store, as when the batch processor holds it.
it('a PATCH sent while the previous edit is on its way starts from that edit: both parts are kept', async () => {
  const patch = (trace: unknown) =>
    fetch(`${base}/simple/traces/${T}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ trace }) });
  const first = await patch({ tags: { reviewed: true } });
  expect(first.status).toBe(200);
  const second = patch({ meta: { score: 3 } });
  // The second waits for the first edit to be stored: nothing more is appended until it is delivered.
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(appended).toHaveLength(1);
  await store.export(appended[0].batch.spans);
  const answered = await second;
  expect(answered.status).toBe(200);
  expect(((await answered.json()) as { trace: unknown }).trace).toMatchObject({ tags: { reviewed: true }, meta: { score: 3 } });
  expect(appended).toHaveLength(2);
  await store.export(appended[1].batch.spans);
  expect(store.reads()!.simpleTrace('', T)).toMatchObject({ tags: { reviewed: true }, meta: { score: 3 } });
});

it('a PATCH whose previous edit never reaches the store answers 503 with Retry-After, and the next one starts from the store', async () => {
  const patch = (trace: unknown) =>
    fetch(`${base}/simple/traces/${T}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ trace }) });
  await new Promise((resolve) => server.close(resolve));
  await serve({ ...httpDefaults, read: { ...httpDefaults.read, query_timeout: 200 } });
  expect((await patch({ tags: { reviewed: true } })).status).toBe(200);
  const late = await patch({ meta: { score: 3 } });
  expect(late.status).toBe(503);
  expect(late.headers.get('retry-after')).toBe('1');
  expect(((await late.json()) as { detail: string }).detail).toMatch(/earlier PATCH .* has not reached the trace store within read.query_timeout/);
  expect(appended).toHaveLength(1);
  const retried = await patch({ meta: { score: 3 } });
  expect(retried.status).toBe(200);
  expect(((await retried.json()) as { trace: unknown }).trace).toMatchObject({ meta: { score: 3 } });
});

it('answers 503 to every PATCH that arrived while a late edit was on its way, so none loses its fields when it lands', async () => {
  const patch = (trace: unknown) =>
    fetch(`${base}/simple/traces/${T}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ trace }) });
  await new Promise((resolve) => server.close(resolve));
  await serve({ ...httpDefaults, read: { ...httpDefaults.read, query_timeout: 300 } });
  expect((await patch({ tags: { reviewed: true } })).status).toBe(200);
  const [b, c] = await Promise.all([patch({ meta: { score: 3 } }), patch({ data: { outputs: 'x' } })]);
  expect([b.status, c.status]).toEqual([503, 503]);
  expect(appended).toHaveLength(1);
  // The first edit lands late; a PATCH sent after the expiry starts from the store, which holds it now.
  await store.export(appended[0].batch.spans);
  const retried = await patch({ meta: { score: 3 } });
  expect(retried.status).toBe(200);
  expect(((await retried.json()) as { trace: unknown }).trace).toMatchObject({ tags: { reviewed: true }, meta: { score: 3 } });
});

it('a PATCH waiting through a reload that replaces the store goes on when the new store holds the edit', async () => {
  const patch = (trace: unknown) =>
    fetch(`${base}/simple/traces/${T}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ trace }) });
  expect((await patch({ tags: { reviewed: true } })).status).toBe(200);
  const second = patch({ meta: { score: 3 } });
  await new Promise((resolve) => setTimeout(resolve, 50));
  // As a reload does: the new store starts (here holding the trace already), then the old one shuts down.
  const next = new StoreExporter({ path: join(dir, 'store-2.db'), maxBytes: 1 << 30, maxAge: 0, pruneInterval: 60_000, logger: silentLogger });
  await next.start();
  await next.export(ingested(FIXTURE_F));
  const old = store;
  store = next;
  await old.shutdown();
  await store.export(appended[0].batch.spans);
  const answered = await second;
  expect(answered.status).toBe(200);
  expect(((await answered.json()) as { trace: unknown }).trace).toMatchObject({ tags: { reviewed: true }, meta: { score: 3 } });
});

it('an edit the store never holds expires on its own: a PATCH sent after its expiry starts from the store at once', async () => {
  const patch = (trace: unknown) =>
    fetch(`${base}/simple/traces/${T}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ trace }) });
  await new Promise((resolve) => server.close(resolve));
  await serve({ ...httpDefaults, read: { ...httpDefaults.read, query_timeout: 200 } });
  expect((await patch({ tags: { reviewed: true } })).status).toBe(200);
  // Never delivered (as a dead-lettered edit), and no PATCH waits on it.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const next = await patch({ meta: { score: 3 } });
  expect(next.status).toBe(200);
  expect(((await next.json()) as { trace: unknown }).trace).toMatchObject({ meta: { score: 3 } });
});
