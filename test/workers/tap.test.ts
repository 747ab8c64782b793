// `tracehop tap` against a daemon with two workers: the primary asks every worker for the tap and
// merges their lines, so the watcher sees every span whichever worker took it; a worker restarted
// while the tap is open is asked for it too once it has started.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, startDaemon, type Daemon } from '../helpers/daemon.ts';
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

/** `tracehop tap --count N` against the primary's telemetry address, resolved once it is watching. */
async function startTap(daemon: Daemon, count: number) {
  const address = daemon.endpoints.metrics[0].replace('http://', '');
  const child = spawn(process.execPath, [CLI, 'tap', '--address', address, '--count', String(count)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (d) => {
      stderr += d;
      if (stderr.includes('"watching"')) resolve();
    });
    void exited.then(() => reject(new Error(`tap exited early: ${stderr}`)));
  });
  const ids = () => stdout.split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { span_id: string }).span_id);
  return { exited, ids };
}

/** POSTs the spans `from`..`to` (1-based), each on a connection of its own; all must be acknowledged. */
async function post(daemon: Daemon, from: number, to: number): Promise<string[]> {
  const ids = Array.from({ length: to - from + 1 }, (_, i) => spanId(from + i));
  expect(await Promise.all(ids.map((id) => postSpan(daemon.url('http'), id)))).toEqual(ids.map(() => 202));
  return ids;
}

const ready = async (daemon: Daemon) => (await fetch(`${daemon.endpoints.health_check[0]}/health/ready`)).status === 200;

describe('tracehop tap with two workers', () => {
  it('sees the spans of every worker, and of a worker restarted while it watches', async () => {
    const daemon = await startDaemon(CONFIG);
    const pids = daemon.logs.find((l) => l.msg === 'tracehop started')!.pids as number[];
    try {
      const tap = await startTap(daemon, 40);
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
});
