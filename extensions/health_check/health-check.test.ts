// The extension in a real graph (config loader, memory stream, the tracing API receiver, a runner) over
// loopback HTTP; the one fake is an exporter the test makes fail and recover.
import { afterEach, describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../cmd/components.ts';
import { loadConfigText } from '../../config/load.ts';
import type { Exporter, Factory } from '../../pipeline/component.ts';
import { RetryableError, StartupError } from '../../pipeline/errors.ts';
import { Graph } from '../../pipeline/graph.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { deliveryProperties, object } from '../../pipeline/schema.ts';
import { MemoryStream } from '../../pipeline/stream/memory.ts';
import { HealthCheckExtension } from './health-check.ts';
import type { HealthReport } from './readiness.ts';

/** An exporter that throws a RetryableError while `down` is set. */
class SwitchableExporter implements Exporter {
  down = false;
  async start() {}
  async shutdown() {}
  async export() {
    if (this.down) throw new RetryableError('peer down');
  }
}

async function setup(threshold: string, maxBytes = 1 << 24) {
  const exporter = new SwitchableExporter();
  const switchable: Factory<unknown, Exporter> = { type: 'switchable', kind: 'exporter', schema: object(deliveryProperties), create: () => exporter };
  const registry = builtinRegistry().register(switchable);
  const config = loadConfigText(`
extensions:
  health_check:
    endpoint: 127.0.0.1:0
    exporter_failure_threshold: ${threshold}
receivers:
  http:
    endpoint: 127.0.0.1:0
exporters:
  switchable:
    retry: {initial_interval: 10ms, max_interval: 50ms}
service:
  extensions: [health_check]
  pipelines:
    traces:
      receivers: [http]
      exporters: [switchable]
`, 'test.yaml', registry);
  await registry.load(config);
  const graph = new Graph(config, {
    registry,
    logger: silentLogger,
    createStream: () => new MemoryStream({ maxBytes, retryAfterMs: 1000 }),
    retryAfterMs: 1000,
  });
  graphs.push(graph);
  return { graph, exporter };
}

const graphs: Graph[] = [];
afterEach(async () => {
  for (const g of graphs.splice(0)) await g.shutdown(1000);
});

async function probe(graph: Graph, path: string, method = 'GET'): Promise<{ status: number; body: HealthReport & { detail?: string }; headers: Headers }> {
  const res = await fetch(graph.endpoints().health_check[0] + path, { method });
  return { status: res.status, body: (await res.json()) as HealthReport & { detail?: string }, headers: res.headers };
}

async function post(graph: Graph, count: number): Promise<number> {
  const spans = Array.from({ length: count }, (_, i) => ({
    trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: (i + 1).toString(16).padStart(16, '0'),
    span_name: 's', start_time: 1776363498, end_time: 1776363499,
  }));
  const res = await fetch(graph.endpoints().http[0] + '/tracing/spans/ingest', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ spans }),
  });
  return res.status;
}

/** Probes until `done` holds (a deadline only against hanging). */
async function until(graph: Graph, done: (r: { status: number; body: HealthReport }) => boolean): Promise<{ status: number; body: HealthReport }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const r = await probe(graph, '/health/ready');
    if (done(r) || Date.now() > deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('health_check extension', () => {
  it('answers ready with every component listed once the graph started', async () => {
    const { graph } = await setup('30s');
    await graph.start();
    expect(graph.endpoints().health_check[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const ready = await probe(graph, '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.headers.get('content-type')).toBe('application/json');
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect(ready.body).toEqual({
      live: true,
      ready: true,
      receivers: { http: { state: 'listening', ready: true, endpoints: graph.endpoints().http } },
      pipelines: {
        traces: {
          stream: { state: 'writable', ready: true, bytes: 0, max_bytes: 1 << 24, high_water_bytes: Math.floor((1 << 24) * 0.9) },
          exporters: { switchable: { state: 'caught_up', ready: true, backlog_spans: 0 } },
        },
      },
    });
    const live = await probe(graph, '/health/live');
    expect(live.status).toBe(200);
    expect(live.body.live).toBe(true);
  });

  it('is not ready while an exporter fails past the threshold, and ready again once it delivers', async () => {
    const { graph, exporter } = await setup('0s');
    await graph.start();
    exporter.down = true;
    expect(await post(graph, 3)).toBe(202);
    const failing = await until(graph, (r) => r.status === 503);
    expect(failing.status).toBe(503);
    expect(failing.body.ready).toBe(false);
    expect(failing.body.pipelines.traces.exporters.switchable).toMatchObject({ state: 'failing', ready: false, backlog_spans: 3 });
    expect(Date.parse(failing.body.pipelines.traces.exporters.switchable.failing_since!)).toBeGreaterThan(0);
    // The process still answers: live is 200 with the same report.
    const live = await probe(graph, '/health/live');
    expect(live.status).toBe(200);
    expect(live.body.ready).toBe(false);

    exporter.down = false;
    const recovered = await until(graph, (r) => r.status === 200);
    expect(recovered.status).toBe(200);
    expect(recovered.body.pipelines.traces.exporters.switchable).toEqual({ state: 'caught_up', ready: true, backlog_spans: 0 });
  });

  it('keeps a failing exporter ready under the threshold', async () => {
    const { graph, exporter } = await setup('1h');
    await graph.start();
    exporter.down = true;
    expect(await post(graph, 2)).toBe(202);
    const failing = await until(graph, (r) => r.body.pipelines.traces.exporters.switchable.state === 'failing');
    expect(failing.status).toBe(200);
    expect(failing.body.pipelines.traces.exporters.switchable).toMatchObject({ state: 'failing', ready: true, backlog_spans: 2 });
  });

  it('is not ready when a stream holds its high-water mark', async () => {
    // A 1-byte bound: the first request (taken whole because the stream is empty) is over it.
    const { graph, exporter } = await setup('1h', 1);
    await graph.start();
    exporter.down = true;
    expect(await post(graph, 1)).toBe(202);
    const full = await probe(graph, '/health/ready');
    expect(full.status).toBe(503);
    expect(full.body.pipelines.traces.stream).toMatchObject({ state: 'above_high_water', ready: false, max_bytes: 1 });
  });

  it('is not ready once shutdown began (receivers closed, stream sealed) while live still answers', async () => {
    const { graph, exporter } = await setup('1h');
    await graph.start();
    exporter.down = true;
    expect(await post(graph, 1)).toBe(202);
    // The drain waits for the failing exporter until its timeout; the probes answer meanwhile.
    const stopped = graph.shutdown(3000);
    const draining = await until(graph, (r) => r.body.pipelines.traces.stream.state === 'not_writable');
    expect(draining.status).toBe(503);
    expect(draining.body.receivers.http.state).toBe('not_listening');
    expect(draining.body.pipelines.traces.stream).toMatchObject({ state: 'not_writable', reason: 'shutting down' });
    expect((await probe(graph, '/health/live')).status).toBe(200);
    exporter.down = false;
    expect(await stopped).toBe(0);
  });

  it('refuses to start with a StartupError naming itself and the endpoint when the port is taken', async () => {
    const { graph } = await setup('30s');
    await graph.start();
    const taken = new URL(graph.endpoints().health_check[0]).host;
    const second = new HealthCheckExtension(
      { endpoint: taken, exporter_failure_threshold: 30_000, stream_high_water_percent: 90 },
      { id: 'health_check', logger: silentLogger, status: () => graph.status() },
    );
    const error = await second.start().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toBe(`health_check extension: cannot listen on ${taken}: EADDRINUSE`);
    expect(second.endpoints()).toEqual([]);
  });

  it('answers 404 off its two paths and 405 to other methods', async () => {
    const { graph } = await setup('30s');
    await graph.start();
    const missing = await probe(graph, '/healthz');
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toContain('/health/ready');
    const post = await probe(graph, '/health/ready', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const query = await fetch(graph.endpoints().health_check[0] + '/health/live?verbose=1');
    expect(query.status).toBe(200);
    const head = await fetch(graph.endpoints().health_check[0] + '/health/ready', { method: 'HEAD' });
    expect(head.status).toBe(200);
  });
});
