// `tracehop tap` against a daemon with two workers: the primary asks every worker for the tap and
// merges their lines, so the watcher sees every span whichever worker took it; a worker restarted
// while the tap is open is asked for it too once it has started. A watcher that stops reading is told
// how many spans it missed, and every span is either written to it or counted.
import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../helpers/daemon.ts';
import { startTap } from '../helpers/tap.ts';
import { eventually, postSpan, spanId, writtenIds } from './traffic.ts';

const CONFIG = `extensions:
  health_check: {endpoint: 127.0.0.1:0}
receivers:
  http: {endpoint: 127.0.0.1:0}
processors:
  batch: {timeout: 20ms}
exporters:
  file: {path: ./out/spans.jsonl}
storage: memory
service:
  workers: 2
  extensions: [health_check]
  pipelines:
    traces: {receivers: [http], processors: [namespace, batch], exporters: [file]}
`;

/** `tracehop tap --count N` against the primary's telemetry address, with the span ids it wrote so far. */
async function startCountingTap(daemon: Daemon, count: number) {
  const tap = await startTap(daemon, ['--count', String(count)]);
  const ids = () => tap.stdout().split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { span_id: string }).span_id);
  return { exited: tap.exited, ids };
}

/** POSTs the spans `from`..`to` (1-based), each on a connection of its own; all must be acknowledged. */
async function post(daemon: Daemon, from: number, to: number): Promise<string[]> {
  const ids = Array.from({ length: to - from + 1 }, (_, i) => spanId(from + i));
  expect(await Promise.all(ids.map((id) => postSpan(daemon.url('http'), id)))).toEqual(ids.map(() => 202));
  return ids;
}

/** POSTs `n` spans of trace `traceId` (ids from + 1 on: an all-zero id is invalid), each with a 1 KB attribute, on a connection of its own. */
function postBig(baseUrl: string, traceId: string, from: number, n: number): Promise<number> {
  const big = 'x'.repeat(1000);
  const spans = Array.from({ length: n }, (_, i) => ({ trace_id: traceId, span_id: spanId(from + i + 1), span_name: 'big',
    start_time: 1776363498, end_time: 1776363499, attributes: { ag: { data: { inputs: { text: big } } } } }));
  const body = JSON.stringify({ spans });
  return new Promise((resolve) => {
    const req = request(new URL('/tracing/spans/ingest', baseUrl), { method: 'POST', agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

const ready = async (daemon: Daemon) => (await fetch(`${daemon.endpoints.health_check[0]}/health/ready`)).status === 200;

describe('tracehop tap with two workers', () => {
  it('sees the spans of every worker, and of a worker restarted while it watches', async () => {
    const daemon = await startDaemon(CONFIG);
    const pids = daemon.logs.find((l) => l.msg === 'tracehop started')!.pids as number[];
    try {
      const tap = await startCountingTap(daemon, 40);
      const first = await post(daemon, 1, 20);
      expect(await eventually(() => tap.ids().length === 20)).toBe(true);
      expect(tap.ids().sort()).toEqual(first);

      // Worker 1 dies; the tap stays open and is asked of the new worker 1 once it has started.
      process.kill(pids[1], 'SIGKILL');
      const startedOnes = () => daemon.logs.filter((l) => l.msg === 'worker started' && l.worker === 1).length;
      expect(await eventually(async () => startedOnes() === 2 && await ready(daemon))).toBe(true);
      const second = await post(daemon, 21, 40);
      expect(await eventually(() => tap.ids().length === 40)).toBe(true);
      expect(await tap.exited).toBe(0);
      expect(tap.ids().sort()).toEqual([...first, ...second]);

      expect(await daemon.stop()).toBe(0);
      // Both workers, the restarted one too, took some of the spans the tap saw.
      const restarted = await writtenIds(`${daemon.dir}/out`, 'spans.1.');
      const other = await writtenIds(`${daemon.dir}/out`, 'spans.0.');
      expect(restarted.ids.filter((id) => second.includes(id)).length).toBeGreaterThan(0);
      expect(other.ids.filter((id) => first.includes(id)).length).toBeGreaterThan(0);
    } finally {
      await daemon.stop();
    }
  }, 120_000);

  it('a watcher that stops reading holds the workers back, is told what it missed, and misses nothing uncounted', async () => {
    const daemon = await startDaemon(CONFIG);
    const traceId = '5bf92f3577b34da6a3ce929d0e0e4737';
    try {
      const { hostname, port } = new URL(daemon.endpoints.metrics[0]);
      const socket = connect(Number(port), hostname);
      await new Promise((r) => socket.once('connect', r));
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      socket.write(`GET /tap?trace_id=${traceId} HTTP/1.1\r\nhost: x\r\n\r\n`);
      // Both workers watch once the answer has started.
      expect(await eventually(() => text.startsWith('HTTP/1.1 200'))).toBe(true);
      socket.pause();
      const requests = 30;
      const per = 1000;
      for (let r = 0; r < requests; r += 2) {
        const statuses = await Promise.all([0, 1].map((k) => postBig(daemon.url('http'), traceId, (r + k) * per, per)));
        expect(statuses).toEqual([202, 202]);
      }
      socket.resume();
      const seen = () => (text.match(/"span_id":/g) ?? []).length;
      const missed = () => [...text.matchAll(/"tap":"missed","spans":(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
      // Every span offered is written or counted as missed, by the worker that took it.
      expect(await eventually(() => seen() + missed() === requests * per, 60_000)).toBe(true);
      expect(missed()).toBeGreaterThan(0);
      socket.destroy();
      expect(await daemon.stop()).toBe(0);
    } finally {
      await daemon.stop();
    }
  }, 120_000);
});
