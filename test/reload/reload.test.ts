// Reload without loss, as an operator does it: a daemon on its durable default (disk stream, fsync
// always) takes ~5,000 spans/s from the real OpenTelemetry JS SDK's OTLP/HTTP protobuf exporter while its
// config is swapped 100 times between two valid files (a pipeline added and removed, an exporter
// replaced, a receiver's settings changed) with invalid ones in between. Every span the SDK saw
// acknowledged is written by an exporter, no request is refused, and memory does not grow.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as OTLPGrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { EndedSpans } from '../helpers/ended-spans.ts';
import { metric, reload } from '../helpers/telemetry.ts';
import { CLI, startDaemon, tempDir, type Daemon } from '../helpers/daemon.ts';

const RECEIVERS = `receivers:
  otlp:
    protocols:
      http: {endpoint: 127.0.0.1:0}
`;

// `traces` to file/a; the http receiver with its defaults.
const CONFIG_A = `${RECEIVERS}  http: {endpoint: 127.0.0.1:0}
processors:
  batch: {timeout: 20ms}
exporters:
  file/a: {path: ./a.jsonl, rotation: {max_megabytes: 0}}
service:
  pipelines:
    traces: {receivers: [otlp, http], processors: [namespace, batch], exporters: [file/a]}
`;

// `traces` to file/b instead, a second pipeline `copy`, and the http receiver with another setting
// (restarted: it is not the one under load).
const CONFIG_B = `${RECEIVERS}  http: {endpoint: 127.0.0.1:0, max_spans_per_request: 5000}
processors:
  batch: {timeout: 20ms}
exporters:
  file/b: {path: ./b.jsonl, rotation: {max_megabytes: 0}}
  file/copy: {path: ./copy.jsonl}
service:
  pipelines:
    traces: {receivers: [otlp, http], processors: [namespace, batch], exporters: [file/b]}
    traces/copy: {receivers: [otlp], processors: [namespace, batch], exporters: [file/copy]}
`;

const INVALID = [
  { config: CONFIG_A.replace('file/a]', 'file/nowhere]'), says: 'file/nowhere' },
  { config: CONFIG_B + 'storage: {fsync: interval}\n', says: 'storage: changed, and takes effect only when tracehop restarts' },
  { config: 'receivers: [', says: 'tracehop.yaml' },
];

const RELOADS = 100;
const SPANS_PER_TICK = 100;
const TICK_MS = 20;

/**
 * The daemon's live JavaScript heap: the bytes of every object in a heap snapshot, which Node takes
 * after a full garbage collection (on SIGUSR2, with --heapsnapshot-signal). Unlike the RSS or the heap
 * in use, it does not depend on when V8 last collected or gave memory back.
 */
async function liveHeapBytes(daemon: Daemon, snapshots: string): Promise<number> {
  const before = new Set(await readdir(snapshots));
  daemon.child.kill('SIGUSR2');
  for (let wait = 0; wait < 1200; wait++) {
    await new Promise((r) => setTimeout(r, 50));
    const file = (await readdir(snapshots)).find((f) => !before.has(f));
    if (file === undefined) continue;
    try {
      const snapshot = JSON.parse(await readFile(join(snapshots, file), 'utf8')) as {
        snapshot: { meta: { node_fields: string[] } }; nodes: number[];
      };
      const fields = snapshot.snapshot.meta.node_fields;
      const size = fields.indexOf('self_size');
      let total = 0;
      for (let i = size; i < snapshot.nodes.length; i += fields.length) total += snapshot.nodes[i];
      return total;
    } catch {
      // still being written
    }
  }
  throw new Error('no heap snapshot within a minute');
}

async function written(daemon: Daemon, file: string): Promise<string[]> {
  const text = await readFile(join(daemon.dir, file), 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { span_id: string }).span_id);
}

describe('reload without loss', () => {
  it('100 reloads under ~5k spans/s: every acknowledged span is written, nothing refused, memory flat', async () => {
    const snapshots = await tempDir('tracehop-heap-');
    const daemon = await startDaemon(CONFIG_A, { command: [process.execPath, '--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshots}`, CLI] });
    const configPath = join(daemon.dir, 'tracehop.yaml');
    const metricsUrl = daemon.endpoints.metrics[0];
    const exporter = new OTLPTraceExporter({ url: `${daemon.url('otlp')}/v1/traces`, timeoutMillis: 60_000 });
    const collector = new EndedSpans();
    const tracer = new TracerProvider({ spanProcessors: [collector] }).getTracer('reload-test');
    const acknowledged: string[] = [];
    const failures: string[] = [];
    const inFlight = new Set<Promise<void>>();
    let next = 0;
    let paused = false;
    const load = setInterval(() => {
      // Like an SDK's batch processor, at most a few exports at once: a machine busy with other work
      // slows the daemon, and the exporter refuses to queue more than its concurrency limit.
      if (paused || inFlight.size >= 8) return;
      for (let i = 0; i < SPANS_PER_TICK; i++) tracer.startSpan(`step ${next++}`, { attributes: { 'gen_ai.request.model': 'gpt-4o', n: next } }).end();
      const batch = collector.take();
      const sent = new Promise<void>((resolve) => exporter.export(batch, (result) => {
        if (result.code === 0) for (const span of batch) acknowledged.push(span.spanContext().spanId);
        else failures.push(String(result.error));
        resolve();
      }));
      inFlight.add(sent);
      void sent.then(() => inFlight.delete(sent));
    }, TICK_MS);

    try {
      const outcomes: string[] = [];
      let liveAfterWarmUp = 0;
      // The live heap with nothing in flight: the load paused and what was sent delivered.
      const liveHeapAtRest = async () => {
        paused = true;
        await Promise.all(inFlight);
        await new Promise((r) => setTimeout(r, 500));
        const live = await liveHeapBytes(daemon, snapshots);
        paused = false;
        return live;
      };
      for (let i = 1; i <= RELOADS; i++) {
        if (i % 10 === 5) {
          const invalid = INVALID[(i / 10 | 0) % INVALID.length];
          await writeFile(configPath, invalid.config);
          const refused = await reload(metricsUrl);
          expect(refused.status).toBe(400);
          expect(refused.body.result).toBe('invalid');
          expect(refused.body.problems!.join('\n')).toContain(invalid.says);
        }
        await writeFile(configPath, i % 2 === 1 ? CONFIG_B : CONFIG_A);
        const applied = await reload(metricsUrl);
        outcomes.push(applied.body.result);
        expect(applied.body.problems).toBeUndefined();
        expect(applied.status).toBe(200);
        await new Promise((r) => setTimeout(r, 50));
        if (i === 20) liveAfterWarmUp = await liveHeapAtRest();
      }
      expect(outcomes.every((o) => o === 'applied')).toBe(true);

      // A few more through SIGHUP, the way a service manager reloads.
      for (let i = 0; i < 2; i++) {
        await writeFile(configPath, i % 2 === 0 ? CONFIG_B : CONFIG_A);
        const before = daemon.logs.filter((l) => l.msg === 'config reloaded').length;
        daemon.child.kill('SIGHUP');
        for (let wait = 0; wait < 400 && daemon.logs.filter((l) => l.msg === 'config reloaded').length === before; wait++) {
          await new Promise((r) => setTimeout(r, 25));
        }
        expect(daemon.logs.filter((l) => l.msg === 'config reloaded').length).toBe(before + 1);
      }

      clearInterval(load);
      await Promise.all(inFlight);
      const text = await (await fetch(`${metricsUrl}/metrics`)).text();
      expect(metric(text, 'tracehop_config_reloads_total', 'result="applied"')).toBe(RELOADS + 2);
      expect(metric(text, 'tracehop_config_reloads_total', 'result="invalid"')).toBe(RELOADS / 10);
      expect(metric(text, 'tracehop_receiver_refused_requests_total')).toBe(0);
      expect(failures).toEqual([]);
      expect(acknowledged.length).toBeGreaterThan(10_000);
      // No reload leaves anything behind: the live heap after the run within 10% of what it was after
      // the first 20 reloads (each replaced graph kept alive would add its processors, exporters and runners).
      const live = await liveHeapAtRest();
      expect(live).toBeLessThanOrEqual(liveAfterWarmUp * 1.1);
    } finally {
      clearInterval(load);
      expect(await daemon.stop()).toBe(0);
    }

    const delivered = new Set([...await written(daemon, 'a.jsonl'), ...await written(daemon, 'b.jsonl')]);
    const lost = acknowledged.filter((id) => !delivered.has(id));
    expect(lost).toEqual([]);
    expect(new Set(acknowledged).size).toBe(acknowledged.length);
  }, 300_000);
});

describe('reload with a store', () => {
  it('the http receiver it keeps reads from the store exporter that replaced the old one', async () => {
    const config = (timeout: string) => `receivers:
  http: {endpoint: 127.0.0.1:0}
processors:
  batch: {timeout: ${timeout}}
exporters:
  store: {path: ./store.db}
service:
  pipelines:
    traces: {receivers: [http], processors: [batch], exporters: [store]}
`;
    const daemon = await startDaemon(config('10ms'));
    try {
      const base = daemon.url('http');
      const send = (n: number) => fetch(`${base}/tracing/spans/ingest`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ spans: [{ trace_id: n.toString(16).padStart(32, '0'), span_id: n.toString(16).padStart(16, '0'), span_name: `s${n}`, start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:01Z' }] }),
      });
      const read = async (n: number) => {
        for (let i = 0; i < 200; i++) {
          const body = await (await fetch(`${base}/tracing/traces/${n.toString(16).padStart(32, '0')}`)).json() as { count: number };
          if (body.count === 1) return body;
          await new Promise((r) => setTimeout(r, 25));
        }
        return undefined;
      };
      expect((await send(1)).status).toBe(202);
      expect(await read(1)).toMatchObject({ count: 1 });
      await writeFile(join(daemon.dir, 'tracehop.yaml'), config('20ms'));
      expect((await reload(daemon.endpoints.metrics[0])).status).toBe(200);
      expect(daemon.endpoints.http[0]).toBe(base);
      expect((await send(2)).status).toBe(202);
      expect(await read(2)).toMatchObject({ count: 1 });
      expect(await read(1)).toMatchObject({ count: 1 });
    } finally {
      expect(await daemon.stop()).toBe(0);
    }
  }, 60_000);
});

describe('a reload whose exporter cannot start', () => {
  it('fails with 500, and the running config goes on taking and delivering spans', async () => {
    const config = (path: string) => `receivers:
  http: {endpoint: 127.0.0.1:0}
processors:
  batch: {timeout: 10ms}
exporters:
  file: {path: ${path}}
service:
  pipelines:
    traces: {receivers: [http], processors: [batch], exporters: [file]}
`;
    const daemon = await startDaemon(config('./out.jsonl'));
    try {
      // A file under a regular file: its directory can never be made.
      await writeFile(join(daemon.dir, 'not-a-dir'), 'x');
      await writeFile(join(daemon.dir, 'tracehop.yaml'), config('./not-a-dir/out.jsonl'));
      const failed = await reload(daemon.endpoints.metrics[0]);
      expect(failed.status).toBe(500);
      expect(failed.body).toMatchObject({ result: 'failed', generation: 1 });
      expect(failed.body.problems!.join('\n')).toContain('not-a-dir');
      const sent = await fetch(`${daemon.url('http')}/tracing/spans/ingest`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ spans: [{ trace_id: '1'.repeat(32), span_id: '2'.repeat(16), span_name: 'after', start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:01Z' }] }),
      });
      expect(sent.status).toBe(202);
      let ids: string[] = [];
      for (let i = 0; i < 200 && ids.length === 0; i++) {
        ids = await written(daemon, 'out.jsonl');
        if (ids.length === 0) await new Promise((r) => setTimeout(r, 25));
      }
      expect(ids).toEqual(['2'.repeat(16)]);
      expect(daemon.logs.some((l) => l.msg === 'config reload failed: the running config stays')).toBe(true);
    } finally {
      expect(await daemon.stop()).toBe(0);
    }
  }, 60_000);
});

describe('a reload that renames a receiver on the same port', () => {
  it('binds the new id to the port the removed one held, and it takes spans', async () => {
    const free = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const config = (id: string) => `receivers:
  ${id}: {endpoint: 127.0.0.1:${free}}
processors:
  batch: {timeout: 10ms}
exporters:
  file: {path: ./out.jsonl}
service:
  pipelines:
    traces: {receivers: [${id}], processors: [batch], exporters: [file]}
`;
    const daemon = await startDaemon(config('http'));
    try {
      await writeFile(join(daemon.dir, 'tracehop.yaml'), config('http/main'));
      expect((await reload(daemon.endpoints.metrics[0])).body.result).toBe('applied');
      expect(daemon.logs.some((l) => /cannot start/.test(l.msg))).toBe(false);
      const sent = await fetch(`http://127.0.0.1:${free}/tracing/spans/ingest`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ spans: [{ trace_id: '3'.repeat(32), span_id: '4'.repeat(16), span_name: 'renamed', start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:01Z' }] }),
      });
      expect(sent.status).toBe(202);
    } finally {
      expect(await daemon.stop()).toBe(0);
    }
  }, 60_000);
});

describe('a reload that changes the http receiver', () => {
  it('keeps its port and connections, and the new settings apply', async () => {
    const config = (limit: number) => `receivers:
  http: {endpoint: 127.0.0.1:0, max_spans_per_request: ${limit}}
processors:
  batch: {timeout: 10ms}
exporters:
  file: {path: ./out.jsonl}
service:
  pipelines:
    traces: {receivers: [http], processors: [batch], exporters: [file]}
`;
    const daemon = await startDaemon(config(100));
    const base = daemon.url('http');
    const agent = new Agent({ keepAlive: true, maxSockets: 2 });
    let n = 0;
    const send = (spans: number) => new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ spans: Array.from({ length: spans }, () => {
        n++;
        return { trace_id: n.toString(16).padStart(32, '0'), span_id: n.toString(16).padStart(16, '0'), span_name: `s${n}`, start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:01Z' };
      }) });
      const req = httpRequest(`${base}/tracing/spans/ingest`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end(body);
    });
    // Requests on two keep-alive connections all along: none may fail to connect or be refused.
    let sending = true;
    const statuses: number[] = [];
    const traffic = (async () => { while (sending) statuses.push(await send(1)); })();
    try {
      expect(await send(2)).toBe(202);
      await writeFile(join(daemon.dir, 'tracehop.yaml'), config(1));
      expect((await reload(daemon.endpoints.metrics[0])).status).toBe(200);
      expect(await send(2)).toBe(413);
      await writeFile(join(daemon.dir, 'tracehop.yaml'), config(100));
      expect((await reload(daemon.endpoints.metrics[0])).status).toBe(200);
      expect(await send(2)).toBe(202);
      sending = false;
      await traffic;
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.every((s) => s === 202)).toBe(true);
      // The receiver never listened anywhere else.
      const health = await fetch(`${base}/otlp/v1/traces`);
      expect(health.status).toBe(200);
    } finally {
      sending = false;
      agent.destroy();
      expect(await daemon.stop()).toBe(0);
    }
  }, 60_000);
});

describe('a reload that changes the otlp receiver', () => {
  it('keeps its HTTP and gRPC ports, and both go on taking spans', async () => {
    const config = (limit: number) => `receivers:
  otlp:
    protocols:
      http: {endpoint: 127.0.0.1:0, max_spans_per_request: ${limit}}
      grpc: {endpoint: 127.0.0.1:0}
processors:
  batch: {timeout: 10ms}
exporters:
  file: {path: ./out.jsonl}
service:
  pipelines:
    traces: {receivers: [otlp], processors: [batch], exporters: [file]}
`;
    const daemon = await startDaemon(config(1000));
    try {
      const [httpUrl, grpcUrl] = daemon.endpoints.otlp;
      const viaHttp = new OTLPTraceExporter({ url: `${httpUrl}/v1/traces` });
      const viaGrpc = new OTLPGrpcExporter({ url: grpcUrl.replace('grpc://', 'http://') });
      const send = (exporter: { export: OTLPTraceExporter['export'] }, name: string) => {
        const collector = new EndedSpans();
        const provider = new TracerProvider({ spanProcessors: [collector] });
        provider.getTracer('reload-otlp').startSpan(name).end();
        return new Promise<number>((resolve) => exporter.export(collector.take(), (result) => resolve(result.code)));
      };
      expect([await send(viaHttp, 'http-1'), await send(viaGrpc, 'grpc-1')]).toEqual([0, 0]);
      await writeFile(join(daemon.dir, 'tracehop.yaml'), config(500));
      expect((await reload(daemon.endpoints.metrics[0])).status).toBe(200);
      expect([await send(viaHttp, 'http-2'), await send(viaGrpc, 'grpc-2')]).toEqual([0, 0]);
      await viaGrpc.shutdown();
      let names: string[] = [];
      for (let i = 0; i < 200 && names.length < 4; i++) {
        const text = await readFile(join(daemon.dir, 'out.jsonl'), 'utf8').catch(() => '');
        names = text.split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { span_name: string }).span_name);
        if (names.length < 4) await new Promise((r) => setTimeout(r, 25));
      }
      expect(names.sort()).toEqual(['grpc-1', 'grpc-2', 'http-1', 'http-2']);
    } finally {
      expect(await daemon.stop()).toBe(0);
    }
  }, 60_000);
});
