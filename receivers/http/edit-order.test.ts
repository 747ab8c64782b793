// EditOrder over a real store: an edit in flight is forgotten once the store commits it; one the store never
// holds expires at its append + the bound, and every PATCH that arrived before then answers 503; a reload
// replacing the store during a wait is followed; the PATCHes of one trace run one at a time.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { encodeSpanJson } from '../../codec/record/index.ts';
import { StoreExporter } from '../../exporters/store/store-exporter.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { FIXTURE_F, ingested } from '../../test/helpers/store-fixture.ts';
import { EditOrder, UNBOUNDED_EDIT_WAIT_MS } from './edit-order.ts';

let dir: string;
let store: StoreExporter;
const newStore = async (name: string): Promise<StoreExporter> => {
  const s = new StoreExporter({ path: join(dir, name), maxBytes: 1 << 30, maxAge: 0, pruneInterval: 60_000, logger: silentLogger });
  await s.start();
  return s;
};
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tracehop-order-'));
  store = await newStore('store.db');
});
afterEach(async () => {
  await store.shutdown();
  await rm(dir, { recursive: true, force: true });
});

it('forgets an edit once the store commits it, and a waiting PATCH goes on then', async () => {
  const order = new EditOrder(() => store.reads(), 20_000);
  const [span] = ingested(FIXTURE_F);
  order.appended('', span.traceId, span.spanId, encodeSpanJson(span));
  expect(order.inFlight).toBe(1);
  const waiting = order.stored('', span.traceId, Date.now());
  await store.export([span]);
  expect(await waiting).toBe(true);
  expect(order.inFlight).toBe(0);
  expect(order.watching).toBe(false);
});

it('answers 503 to every PATCH that arrived before a late edit expired, not only the first whose wait ends', async () => {
  const order = new EditOrder(() => store.reads(), 100);
  const [span] = ingested(FIXTURE_F);
  order.appended('', span.traceId, span.spanId, '{"late":"edit A"}');
  const arrived = Date.now();
  const b = order.inTurn('', span.traceId, () => order.stored('', span.traceId, arrived));
  const c = order.inTurn('', span.traceId, () => order.stored('', span.traceId, arrived));
  expect(await b).toBe(false);
  expect(await c).toBe(false);
  // A PATCH arriving after the expiry starts from the stored head.
  expect(await order.stored('', span.traceId, Date.now())).toBe(true);
});

it('stops checking an edit the store never holds once it expires, waited for or not', async () => {
  const order = new EditOrder(() => store.reads(), 30);
  const [span] = ingested(FIXTURE_F);
  order.appended('', span.traceId, span.spanId, '{"not":"this"}');
  await store.export([span]);
  expect(order.watching).toBe(true);
  await sleep(60);
  // No PATCH waited: the expiry alone lets the store's commits go.
  expect(order.watching).toBe(false);
  expect(await order.stored('', span.traceId, Date.now())).toBe(true);
  await sleep(40);
  await store.export([span]);
  expect(order.inFlight).toBe(0);
});

it('bounds the wait for an edit in flight when read.query_timeout is 0', () => {
  expect(new EditOrder(() => store.reads(), 0).boundMs).toBe(UNBOUNDED_EDIT_WAIT_MS);
  expect(new EditOrder(() => store.reads(), Infinity).boundMs).toBe(UNBOUNDED_EDIT_WAIT_MS);
  expect(Number.isFinite(UNBOUNDED_EDIT_WAIT_MS)).toBe(true);
});

it('follows a reload that replaces the store during a wait: the new store commit ends it', async () => {
  let current = store;
  const order = new EditOrder(() => current.reads(), 20_000);
  const [span] = ingested(FIXTURE_F);
  order.appended('', span.traceId, span.spanId, encodeSpanJson(span));
  const waiting = order.stored('', span.traceId, Date.now());
  const old = store;
  // As a reload does: the new store starts, then the old one shuts down.
  store = await newStore('store-2.db');
  current = store;
  await old.shutdown();
  await store.export([span]);
  expect(await Promise.race([waiting, sleep(10_000).then(() => 'still waiting')])).toBe(true);
});

it('runs the PATCHes of one trace one at a time, in arrival order, even after one fails', async () => {
  const order = new EditOrder(() => store.reads(), 1000);
  const log: string[] = [];
  let release!: () => void;
  const first = order.inTurn('', 't', () => new Promise<void>((resolve) => (release = resolve)).then(() => void log.push('first')));
  const second = order.inTurn('', 't', async () => {
    log.push('second');
    throw new Error('refused');
  });
  const third = order.inTurn('', 't', async () => void log.push('third'));
  const other = order.inTurn('', 'u', async () => void log.push('other trace'));
  await other;
  expect(log).toEqual(['other trace']);
  release();
  await first;
  await expect(second).rejects.toThrow('refused');
  await third;
  expect(log).toEqual(['other trace', 'first', 'second', 'third']);
});
