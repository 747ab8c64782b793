// The store inside a real daemon (the built CLI, `npm run build`): spans acknowledged by the tracing API
// reach the store through the disk stream, and a kill -9 in the middle of the writes loses none of them.
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon, tempDir, type Daemon } from '../../test/helpers/daemon.ts';

const CONFIG = `
receivers:
  http:
    endpoint: 127.0.0.1:0
processors:
  batch: {timeout: 20ms, send_batch_size: 200}
exporters:
  store:
    path: ./data/store.db
storage:
  type: disk
  directory: ./streams
service:
  pipelines:
    traces:
      receivers: [http]
      processors: [namespace, batch]
      exporters: [store]
`;

const SPANS_PER_REQUEST = 50;

function request(n: number) {
  const traceId = (n + 1).toString(16).padStart(32, '0');
  return Array.from({ length: SPANS_PER_REQUEST }, (_, j) => ({
    trace_id: traceId, span_id: (j + 1).toString(16).padStart(16, '0'), span_name: `s${j}`,
    start_time: 1776363498 + j, end_time: 1776363499 + j, attributes: { 'ag.data.inputs.n': n },
  }));
}

/** `trace_id/span_id` of every stored span; opened read-only beside the running daemon (WAL allows it). */
function storedKeys(path: string): Set<string> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return new Set(db.prepare('SELECT trace_id, span_id FROM spans').all().map((r) => `${r.trace_id}/${r.span_id}`));
  } finally {
    db.close();
  }
}

function quickCheck(path: string): string {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return String(db.prepare('PRAGMA quick_check').get()!.quick_check);
  } finally {
    db.close();
  }
}

let daemons: Daemon[] = [];
afterEach(async () => {
  for (const d of daemons) await d.stop('SIGKILL');
  daemons = [];
});

describe('store exporter in a daemon', () => {
  it('holds every acknowledged span after kill -9 during writes and a restart', async () => {
    const dir = await tempDir('tracehop-store-kill-');
    const first = await startDaemon(CONFIG, { dir });
    daemons.push(first);
    const ingest = `${first.url('http')}/tracing/spans/ingest`;
    const acknowledged: string[] = [];
    // Several writers, so the kill lands while batches are being written to the store.
    let n = 0;
    let killed = false;
    const writer = async () => {
      while (!killed) {
        const i = n++;
        const spans = request(i);
        try {
          const res = await fetch(ingest, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ spans }) });
          if (res.status === 202) for (const s of spans) acknowledged.push(`${s.trace_id}/${s.span_id}`);
        } catch {
          // the connection died with the daemon: not acknowledged
        }
        if (i === 120 && !killed) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all([writer(), writer(), writer()]);
    await first.exited;
    const path = join(dir, 'data', 'store.db');
    expect(quickCheck(path)).toBe('ok');
    expect(acknowledged.length).toBeGreaterThanOrEqual(100 * SPANS_PER_REQUEST);

    const second = await startDaemon(CONFIG, { dir });
    daemons.push(second);
    // The restart delivers from the disk stream what the store had not committed; wait for all of it.
    const deadline = Date.now() + 30_000;
    const atRestart = storedKeys(path);
    let missing = acknowledged.filter((k) => !atRestart.has(k));
    while (missing.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      const stored = storedKeys(path);
      missing = missing.filter((k) => !stored.has(k));
    }
    expect(missing).toEqual([]);
    // Redelivery collapsed: one row per span, however often it was delivered.
    const db = new DatabaseSync(path, { readOnly: true });
    const dupes = db.prepare('SELECT count(*) AS n FROM (SELECT trace_id, span_id FROM spans GROUP BY trace_id, span_id HAVING count(*) > 1)').get()!.n;
    db.close();
    expect(dupes).toBe(0);
  });
});
