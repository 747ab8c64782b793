// kill -9 of one worker under load: the primary starts it again with the same index, it reopens its own
// stream shard, and what it had acknowledged and not yet delivered is delivered from there. The
// exporter's destination (a second tracehop) is down until after the restart, so the killed worker's
// shard surely holds acknowledged spans when it dies. The config file is broken meanwhile: the restarted
// worker runs the config the primary runs, not the file.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../helpers/daemon.ts';
import { freePort } from '../interop/ports.ts';
import { eventually, otlpSender, postSpan, spanId, writtenIds } from './traffic.ts';
import { metric } from '../helpers/telemetry.ts';

const accepted = async (daemon: Daemon) =>
  metric(await (await fetch(`${daemon.endpoints.metrics[0]}/metrics`)).text(), 'tracehop_receiver_accepted_spans_total');

const config = (sinkPort: number) => `receivers:
  http: {endpoint: 127.0.0.1:0}
  otlp:
    protocols:
      http: {endpoint: 127.0.0.1:0}
processors:
  batch: {timeout: 20ms}
exporters:
  otlp:
    endpoint: http://127.0.0.1:${sinkPort}
    retry: {initial_interval: 100ms, max_interval: 300ms}
storage: {directory: ./data}
service:
  workers: 2
  pipelines:
    traces: {receivers: [http, otlp], processors: [batch], exporters: [otlp]}
`;

const sinkConfig = (port: number) => `receivers:
  otlp:
    protocols:
      http: {endpoint: 127.0.0.1:${port}}
exporters:
  file: {path: ./sink.jsonl}
service:
  pipelines:
    traces: {receivers: [otlp], exporters: [file]}
`;

describe('a worker killed with SIGKILL under load', () => {
  it('is restarted on its own shard, and every acknowledged span is delivered', async () => {
    const sinkPort = await freePort();
    const daemon = await startDaemon(config(sinkPort));
    let sink: Daemon | undefined;
    try {
      const [victim] = daemon.logs.find((l) => l.msg === 'tracehop started')!.pids as number[];
      const acknowledged: string[] = [];
      const otlp = otlpSender(daemon.url('otlp'));
      let next = 1;
      let killed = false;
      let countedBeforeKill = 0;
      const restarted = () => daemon.logs.filter((l) => l.msg === 'worker started' && l.worker === 0).length === 2;
      // Load until the killed worker is back, and a while after.
      for (let round = 0; round < 400 && !(restarted() && round > 60); round++) {
        const ids = Array.from({ length: 10 }, () => spanId(next++));
        const [statuses, viaOtlp] = await Promise.all([Promise.all(ids.map((id) => postSpan(daemon.url('http'), id))), otlp.send(10)]);
        ids.forEach((id, i) => { if (statuses[i] === 202) acknowledged.push(id); });
        acknowledged.push(...viaOtlp);
        if (!killed && round === 20) {
          // Edited and not reloaded: the restarted worker must run what the other runs, not this.
          await writeFile(join(daemon.dir, 'tracehop.yaml'), 'receivers: [');
          countedBeforeKill = await accepted(daemon);
          process.kill(victim, 'SIGKILL');
          killed = true;
        }
      }
      await otlp.shutdown();
      expect(restarted()).toBe(true);
      expect(daemon.logs.some((l) => l.msg === 'worker exited: restarting it on its own stream shard' && l.worker === 0 && l.signal === 'SIGKILL')).toBe(true);
      // The new worker 0 reopened the shard of the old one, with what that one had not delivered.
      const reopened = daemon.logs.filter((l) => l.msg === 'ingest stream opened' && l.worker === 0);
      expect(reopened.length).toBe(2);
      expect(reopened[1].directory).toBe(reopened[0].directory);
      expect(reopened[1].spans).toBeGreaterThan(0);
      // The sum in /metrics keeps what the dead worker had counted: it never goes back.
      expect(countedBeforeKill).toBeGreaterThan(0);
      expect(await accepted(daemon)).toBeGreaterThan(countedBeforeKill);
      const text = await (await fetch(`${daemon.endpoints.metrics[0]}/metrics`)).text();
      expect([metric(text, 'tracehop_worker_restarts_total'), metric(text, 'tracehop_workers_running'), metric(text, 'tracehop_workers')]).toEqual([1, 2, 2]);

      sink = await startDaemon(sinkConfig(sinkPort));
      const want = new Set(acknowledged);
      const delivered = async () => {
        const { ids } = await writtenIds(sink!.dir, 'sink');
        const got = new Set(ids);
        return [...want].every((id) => got.has(id));
      };
      expect(await eventually(delivered, 60_000)).toBe(true);
      expect(await daemon.stop('SIGTERM')).toBe(0);
    } finally {
      daemon.child.kill('SIGKILL');
      if (sink) await sink.stop();
    }
  }, 120_000);
});

describe('a primary killed with SIGKILL', () => {
  it('leaves no worker behind: each sees its channel close, delivers what it acknowledged (memory stream) and exits', async () => {
    const daemon = await startDaemon(`receivers:
  http: {endpoint: 127.0.0.1:0}
processors:
  batch: {timeout: 5s}
exporters:
  file: {path: ./out.jsonl}
storage: {type: memory}
service:
  workers: 2
  pipelines:
    traces: {receivers: [http], processors: [batch], exporters: [file]}
`);
    const pids = daemon.logs.find((l) => l.msg === 'tracehop started')!.pids as number[];
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      // Held by the batch processor's 5 s timeout: only the drain writes them before the workers exit.
      const ids = Array.from({ length: 40 }, (_, i) => spanId(i + 1));
      expect(await Promise.all(ids.map((id) => postSpan(daemon.url('http'), id)))).toEqual(ids.map(() => 202));
      daemon.child.kill('SIGKILL');
      expect(await eventually(() => pids.every((pid) => !alive(pid)))).toBe(true);
      expect(daemon.logs.filter((l) => l.msg === 'stopped').map((l) => l.worker).sort()).toEqual([0, 1]);
      expect((await writtenIds(daemon.dir, 'out.')).ids.sort()).toEqual(ids);
    } finally {
      for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 60_000);
});
