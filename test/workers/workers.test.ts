// `service.workers: 2` as an operator runs it: two worker processes share the receivers' ports, and
// the primary answers the health probes and /metrics for both. Spans arrive over the tracing API (each
// request on a connection of its own, so both workers take some) and over OTLP/HTTP from the real
// OpenTelemetry exporters (OTLP/HTTP and gRPC, whose port the workers share too); every acknowledged span is written by a worker's file exporter (one file per
// worker), /metrics counts every one of them once, and SIGTERM drains both workers.
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, startDaemon } from '../helpers/daemon.ts';
import { metricsPython, parseExposition } from '../telemetry/scrape.ts';
import { otlpSender, postSpan, spanId, writtenIds } from './traffic.ts';
import { metric } from '../helpers/telemetry.ts';

const CONFIG = `extensions:
  health_check: {endpoint: 127.0.0.1:0}
receivers:
  http: {endpoint: 127.0.0.1:0}
  otlp:
    protocols:
      http: {endpoint: 127.0.0.1:0}
      grpc: {endpoint: 127.0.0.1:0}
processors:
  batch: {timeout: 20ms}
exporters:
  file: {path: ./out/spans.jsonl}
storage: {directory: ./data}
service:
  workers: 2
  extensions: [health_check]
  pipelines:
    traces: {receivers: [http, otlp], processors: [namespace, batch], exporters: [file]}
`;

let python: string;

beforeAll(async () => {
  // The Prometheus project's own parser reads the summed answer (test/telemetry/scrape.ts).
  python = await metricsPython();
}, 10 * 60_000);

describe('a daemon with two workers', () => {
  it('writes every acknowledged span once per worker file, sums /metrics, answers health, and drains both on SIGTERM', async () => {
    const daemon = await startDaemon(CONFIG);
    const started = daemon.logs.find((l) => l.msg === 'tracehop started')!;
    expect(started.workers).toBe(2);
    expect(new Set(started.pids as number[]).size).toBe(2);
    try {
      const acknowledged: string[] = [];
      const otlp = otlpSender(daemon.url('otlp'));
      const grpc = otlpSender(daemon.endpoints.otlp.find((u) => u.startsWith('grpc://'))!);
      for (let round = 0; round < 20; round++) {
        const ids = Array.from({ length: 20 }, (_, i) => spanId(round * 20 + i + 1));
        const statuses = await Promise.all(ids.map((id) => postSpan(daemon.url('http'), id)));
        ids.forEach((id, i) => { if (statuses[i] === 202) acknowledged.push(id); });
        acknowledged.push(...await otlp.send(25), ...await grpc.send(5));
      }
      await otlp.shutdown();
      await grpc.shutdown();
      expect(acknowledged.length).toBe(20 * (20 + 25 + 5));

      const health = await fetch(`${daemon.endpoints.health_check[0]}/health/ready`);
      const report = await health.json() as { ready: boolean; receivers: Record<string, { state: string }> };
      expect(health.status).toBe(200);
      expect(report.receivers.http.state).toBe('listening');

      const text = await (await fetch(`${daemon.endpoints.metrics[0]}/metrics`)).text();
      expect(metric(text, 'tracehop_receiver_accepted_spans_total')).toBe(acknowledged.length);
      expect(metric(text, 'tracehop_build_info')).toBe(1);
      const parsed = await parseExposition(python, text);
      expect(parsed.types.get('tracehop_receiver_accepted_spans')).toBe('counter');
      expect(parsed.value('tracehop_workers')).toBe(2);

      // Stopped at once: what the exporters had not written yet is written by the drain.
      expect(await daemon.stop('SIGTERM')).toBe(0);
      const { files, ids } = await writtenIds(`${daemon.dir}/out`, 'spans.');
      expect(Object.keys(files)).toEqual(['spans.0.jsonl', 'spans.1.jsonl']);
      // Both workers took connections (the primary hands them out in turn), and together wrote each span once.
      expect(Math.min(...Object.values(files))).toBeGreaterThan(0);
      expect(ids.sort()).toEqual([...acknowledged].sort());
      expect(daemon.logs.filter((l) => l.msg === 'stopped').map((l) => l.worker).sort()).toEqual([0, 1, 'primary']);
      // Each worker's stream shard, found from the storage directory, delivered to the end.
      const inspected = await runCli(['inspect', `${daemon.dir}/data`, '--json']);
      const shards = JSON.parse(inspected.stdout) as Array<{ directory: string; readers: Array<{ backlog: { spans: number } }> }>;
      expect(shards.map((r) => r.directory.slice(daemon.dir.length))).toEqual(['/data/traces/0', '/data/traces/1']);
      expect(shards.flatMap((r) => r.readers.map((reader) => reader.backlog.spans))).toEqual([0, 0]);
    } finally {
      daemon.child.kill('SIGKILL');
    }
  }, 60_000);
});
