// EditOrder over a real store: an edit in flight is forgotten once the store commits it; one the store never
// holds expires at its append + the bound, and every PATCH that arrived before then answers 503; a reload
// replacing the store during a wait is followed; the PATCHes of one trace run one at a time.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { encodeSpanJson } from '../../codec/record/index.ts';
import type { TraceReads } from '../../exporters/store/reads.ts';
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

/**
 * The store's reads as EditOrder uses them (its stored records and its commits), counting the commit
 * listeners it holds: it watches a store's commits only while an edit is open.
 */
function listenedReads(reads: TraceReads): { reads: TraceReads; listeners: () => number } {
  let listeners = 0;
  const wrapped: Pick<TraceReads, 'spanRecord' | 'onCommit'> = {
    spanRecord: (project, traceId, spanId) => reads.spanRecord(project, traceId, spanId),
    onCommit: (listener) => {
      listeners++;
      const stop = reads.onCommit(listener);
      return () => {
        listeners--;
        return stop();
      };
    },
  };
  return { reads: wrapped as TraceReads, listeners: () => listeners };
}

/** Still waiting after a while (the store has not committed what it waits for). */
const pending = async (wait: Promise<boolean>): Promise<boolean | 'pending'> => Promise.race([wait, sleep(50).then(() => 'pending' as const)]);

it('forgets an edit once the store commits it, and a waiting PATCH goes on then', async () => {
  const reads = listenedReads(store.reads()!);
  const order = new EditOrder(() => reads.reads, 20_000);
  const [span] = ingested(FIXTURE_F);
  order.appended('', span.traceId, span.spanId, encodeSpanJson(span));
  expect(reads.listeners()).toBe(1);
  const waiting = order.stored('', span.traceId, Date.now());
  expect(await pending(waiting)).toBe('pending');
  await store.export([span]);
  expect(await waiting).toBe(true);
  // Forgotten, not kept as a mark: even a PATCH that arrived long before goes on.
  expect(await order.stored('', span.traceId, 0)).toBe(true);
  expect(reads.listeners()).toBe(0);
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
  const reads = listenedReads(store.reads()!);
  const [span] = ingested(FIXTURE_F);
  // The expiry and the mark's lifetime follow the clock and one timer: both are faked, so what is asserted
  // does not depend on how long the store's work takes on a busy host.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  try {
    const order = new EditOrder(() => reads.reads, 200);
    const arrived = Date.now();
    order.appended('', span.traceId, span.spanId, '{"not":"this"}');
    // The store commits a different record for that span: the edit stays open.
    await store.export([span]);
    expect(reads.listeners()).toBe(1);
    vi.advanceTimersByTime(260);
    // No PATCH waited: the expiry alone lets the store's commits go.
    expect(reads.listeners()).toBe(0);
    expect(await order.stored('', span.traceId, Date.now())).toBe(true);
    // The mark stays for one bound after the expiry: a PATCH that arrived before it still answers 503.
    expect(await order.stored('', span.traceId, arrived)).toBe(false);
    vi.advanceTimersByTime(200);
    // Then stored()'s own sweep drops it (no commit is listened to any more): nothing is left to wait
    // on, whenever the PATCH arrived.
    expect(await order.stored('', span.traceId, arrived)).toBe(true);
  } finally {
    vi.useRealTimers();
  }
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
