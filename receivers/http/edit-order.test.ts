// EditOrder over a real store: an edit in flight is forgotten once the store commits it, or once a PATCH
// waited for it in vain; the PATCHes of one trace run one at a time.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { encodeSpanJson } from '../../codec/record/index.ts';
import { StoreExporter } from '../../exporters/store/store-exporter.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { FIXTURE_F, ingested } from '../../test/helpers/store-fixture.ts';
import { EditOrder } from './edit-order.ts';

let dir: string;
let store: StoreExporter;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tracehop-order-'));
  store = new StoreExporter({ path: join(dir, 'store.db'), maxBytes: 1 << 30, maxAge: 0, pruneInterval: 60_000, logger: silentLogger });
  await store.start();
});
afterEach(async () => {
  await store.shutdown();
  await rm(dir, { recursive: true, force: true });
});

it('forgets an edit once the store commits it, and a waiting PATCH goes on then', async () => {
  const order = new EditOrder();
  const reads = store.reads()!;
  const [span] = ingested(FIXTURE_F);
  order.appended(reads, '', span.traceId, span.spanId, encodeSpanJson(span));
  expect(order.inFlight).toBe(1);
  const waiting = order.stored(reads, '', span.traceId, Date.now() + 20_000);
  await store.export([span]);
  expect(await waiting).toBe(true);
  expect(order.inFlight).toBe(0);
});

it('forgets an edit the store never holds once a PATCH waited for it past its deadline', async () => {
  const order = new EditOrder();
  const reads = store.reads()!;
  const [span] = ingested(FIXTURE_F);
  order.appended(reads, '', span.traceId, span.spanId, '{"not":"this"}');
  await store.export([span]);
  expect(order.inFlight).toBe(1);
  expect(await order.stored(reads, '', span.traceId, Date.now() + 50)).toBe(false);
  expect(order.inFlight).toBe(0);
  expect(await order.stored(reads, '', span.traceId, Date.now())).toBe(true);
});

it('runs the PATCHes of one trace one at a time, in arrival order, even after one fails', async () => {
  const order = new EditOrder();
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
