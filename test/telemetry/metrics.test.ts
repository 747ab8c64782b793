// The daemon's /metrics after known traffic, read with the Prometheus project's own text parser: every
// counter has the exact value the traffic makes. The daemon is the built CLI; the clients are fetch (the
// tracing API) and the real OpenTelemetry JS gRPC exporter; the failing exporter is a real OTLP exporter
// sending to the same daemon's own OTLP receiver without the API key that receiver requires, so every
// delivery is answered 401 and dead-lettered.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace';
import { startDaemon, type Daemon } from '../helpers/daemon.ts';
import { freePort } from '../interop/ports.ts';
import { sdkSpans } from '../otlp/helpers.ts';
import { metricsPython, scrape, type Scrape } from './scrape.ts';
import { version } from '../../cmd/version.ts';

const KEY = 'k-metrics';
const GUARDED_KEY = 'the-guarded-key';
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
// A fresh venv downloads prometheus_client from PyPI once.
const SETUP_TIMEOUT_MS = 10 * 60_000;

function span(i: number, extra: Record<string, unknown> = {}) {
  return { trace_id: TRACE, span_id: (i + 1).toString(16).padStart(16, '0'), span_name: `s${i}`, start_time: 1776363498, end_time: 1776363499, ...extra };
}

function config(guardedPort: number): string {
  return `
extensions:
  api_keys:
    keys: [{key: ${GUARDED_KEY}}]
receivers:
  http:
    endpoint: 127.0.0.1:0
    api_keys: [${KEY}]
    max_spans_per_request: 5
  otlp:
    protocols:
      grpc: {endpoint: 127.0.0.1:0}
  otlp/guarded:
    protocols:
      http:
        endpoint: 127.0.0.1:${guardedPort}
        auth: {authenticator: api_keys}
exporters:
  file:
    path: ./out/spans.jsonl
  otlp:
    endpoint: http://127.0.0.1:${guardedPort}
    compression: none
    retry: {initial_interval: 10ms, max_interval: 10ms}
  file/guarded:
    path: ./out/guarded.jsonl
storage:
  type: disk
  directory: ./streams
service:
  extensions: [api_keys]
  pipelines:
    traces:
      receivers: [http, otlp]
      exporters: [file, otlp]
    traces/guarded:
      receivers: [otlp/guarded]
      exporters: [file/guarded]
`;
}

let python: string;
let daemon: Daemon;

beforeAll(async () => {
  python = await metricsPython();
  daemon = await startDaemon(config(await freePort()));
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  if (daemon) expect(await daemon.stop()).toBe(0);
});

/** `key` null: no Authorization header. */
async function post(body: string, key: string | null = KEY): Promise<number> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== null) headers.authorization = `ApiKey ${key}`;
  const res = await fetch(daemon.url('http') + '/tracing/spans/ingest', { method: 'POST', headers, body });
  await res.arrayBuffer();
  return res.status;
}

/** Scrapes until `done` holds (a deadline only against hanging). */
async function scrapeUntil(done: (s: Scrape) => boolean): ReturnType<typeof scrape> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const s = await scrape(python, daemon.url('metrics'));
    if (done(s) || Date.now() > deadline) return s;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('service.telemetry.metrics', () => {
  it('counts accepted, refused, exported and dead-lettered spans exactly', async () => {
    // The tracing API: 3 + 1 spans accepted, 2 spans refused as invalid (one beside an accepted one,
    // one alone), one request refused for each of auth, limit and invalid JSON.
    expect(await post(JSON.stringify({ spans: [span(0), span(1), span(2)] }))).toBe(202);
    expect(await post(JSON.stringify({ spans: [span(3), span(4, { span_id: 'zz' })] }))).toBe(202);
    expect(await post(JSON.stringify({ spans: [span(5, { span_id: 'zz' })] }))).toBe(422);
    expect(await post(JSON.stringify({ spans: [span(6)] }), null)).toBe(401);
    expect(await post(JSON.stringify({ spans: [0, 1, 2, 3, 4, 5].map((i) => span(10 + i)) }))).toBe(413);
    expect(await post('{"spans": [')).toBe(422);
    // OTLP/gRPC from the real SDK exporter.
    const grpc = new URL(daemon.endpoints.otlp[0].replace('grpc://', 'http://'));
    const processor = new BatchSpanProcessor({ exporter: new GrpcExporter({ url: grpc.origin }), scheduledDelayMillis: 20 });
    const sdk = (await sdkSpans(3, [processor])).length;
    const total = 4 + sdk;
    // OTLP/HTTP from the real SDK exporter, with the key the guarded receiver requires.
    const guarded = new ProtoExporter({ url: `${daemon.url('otlp/guarded')}/v1/traces`, headers: { authorization: `ApiKey ${GUARDED_KEY}` } });
    const guardedSpans = (await sdkSpans(1, [new BatchSpanProcessor({ exporter: guarded, scheduledDelayMillis: 20 })])).length;

    const s = await scrapeUntil((m) => m.value('tracehop_exporter_deadlettered_spans_total', { exporter: 'otlp' }) === total
      && m.value('tracehop_exporter_sent_spans_total', { exporter: 'file' }) === total
      && m.value('tracehop_exporter_sent_spans_total', { exporter: 'file/guarded' }) === guardedSpans);
    expect(s.status).toBe(200);
    expect(s.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');

    // Receivers.
    expect(s.value('tracehop_receiver_accepted_spans_total', { receiver: 'http', transport: 'http' })).toBe(4);
    expect(s.value('tracehop_receiver_accepted_spans_total', { receiver: 'otlp', transport: 'grpc' })).toBe(sdk);
    expect(s.all('tracehop_receiver_refused_spans_total', { receiver: 'http' }).map((x) => [x.labels.reason, x.value])).toEqual([['invalid', 2]]);
    const refusedRequests = s.all('tracehop_receiver_refused_requests_total', { receiver: 'http' }).map((x) => [x.labels.reason, x.value]);
    expect(refusedRequests.sort()).toEqual([['auth', 1], ['invalid', 2], ['limit', 1]]);
    const requests = (status: string) => s.value('tracehop_http_server_request_duration_seconds_count', { receiver: 'http', route: '/tracing/spans/ingest', status });
    expect([requests('202'), requests('401'), requests('413'), requests('422')]).toEqual([2, 1, 1, 2]);
    const rpcCalls = s.all('tracehop_rpc_server_request_duration_seconds_count', { receiver: 'otlp' });
    expect(rpcCalls.map((x) => x.labels.code)).toEqual(['OK']);
    expect(rpcCalls[0].value).toBeGreaterThanOrEqual(1);

    // Exporters: the file exporter delivers everything; every OTLP delivery is refused (401) by the
    // guarded receiver and dead-lettered, one refused request there per export call.
    expect(s.value('tracehop_exporter_sent_spans_total', { exporter: 'otlp' })).toBe(0);
    expect(s.value('tracehop_exporter_send_failed_spans_total', { exporter: 'otlp' })).toBe(total);
    expect(s.value('tracehop_exporter_send_failed_spans_total', { exporter: 'file' })).toBe(0);
    expect(s.value('tracehop_exporter_deadlettered_spans_total', { exporter: 'file' })).toBe(0);
    const otlpCalls = s.value('tracehop_batch_size_spans_count', { exporter: 'otlp' });
    expect(s.value('tracehop_batch_size_spans_sum', { exporter: 'otlp' })).toBe(total);
    expect(s.value('tracehop_exporter_send_duration_seconds_count', { exporter: 'otlp', outcome: 'failed' })).toBe(otlpCalls);
    expect(s.value('tracehop_receiver_refused_requests_total', { receiver: 'otlp/guarded', transport: 'http', reason: 'auth' })).toBe(otlpCalls);
    // The SDK's requests with the key were accepted on the same receiver, over its HTTP route.
    expect(s.value('tracehop_receiver_accepted_spans_total', { receiver: 'otlp/guarded', transport: 'http' })).toBe(guardedSpans);
    const guardedAnswers = s.all('tracehop_http_server_request_duration_seconds_count', { receiver: 'otlp/guarded' });
    expect(guardedAnswers.map((x) => [x.labels.route, x.labels.status]).sort()).toEqual([['/v1/traces', '200'], ['/v1/traces', '401']]);
    expect(guardedAnswers.find((x) => x.labels.status === '401')!.value).toBe(otlpCalls);
    const deadLetters = await readFile(join(daemon.dir, 'data', 'dead-letters', 'otlp.jsonl'), 'utf8');
    expect(deadLetters.trim().split('\n')).toHaveLength(total);
    expect(s.value('tracehop_exporter_backlog_spans', { exporter: 'file', pipeline: 'traces' })).toBe(0);
    expect(s.value('tracehop_exporter_backlog_spans', { exporter: 'otlp', pipeline: 'traces' })).toBe(0);
    expect(s.value('tracehop_exporter_backlog_bytes', { exporter: 'otlp', pipeline: 'traces' })).toBe(0);

    // The disk stream: one record per accepted request, each written by a group commit and synced.
    const records = 2 + rpcCalls[0].value!;
    expect(s.value('tracehop_stream_group_commit_records_sum', { pipeline: 'traces' })).toBe(records);
    expect(s.value('tracehop_stream_fsync_duration_seconds_count', { pipeline: 'traces' })).toBeGreaterThanOrEqual(1);
    expect(s.value('tracehop_stream_segments', { pipeline: 'traces' })).toBeGreaterThanOrEqual(1);
    expect(s.value('tracehop_exporter_backlog_spans', { exporter: 'file/guarded', pipeline: 'traces/guarded' })).toBe(0);

    // The process, the memory limiter, the build.
    expect(s.value('tracehop_build_info', { version: version(), node: process.versions.node })).toBe(1);
    expect(s.value('tracehop_memory_limiter_refusing')).toBe(0);
    expect(s.value('tracehop_memory_limiter_limit_bytes')).toBe(512 * 1024 * 1024);
    expect(s.value('tracehop_process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(s.value('tracehop_nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(s.value('tracehop_process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(s.value('tracehop_nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
    expect(s.types.get('tracehop_http_server_request_duration_seconds')).toBe('histogram');
    expect(s.types.get('tracehop_receiver_accepted_spans')).toBe('counter');
  });

  it('answers GET /metrics only: 404 elsewhere, 405 to other methods', async () => {
    const base = daemon.url('metrics');
    const other = await fetch(`${base}/healthz`);
    expect(other.status).toBe(404);
    expect(await other.text()).toContain('/metrics');
    const post = await fetch(`${base}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await fetch(`${base}/metrics?x=1`)).status).toBe(200);
  });

  it('refuses to start when its address is taken, naming the key; `none` serves nothing', async () => {
    const taken = new URL(daemon.url('metrics')).host;
    const refused = await startDaemon(config(await freePort()), { args: ['--config', 'tracehop.yaml', '--set', `service.telemetry.metrics.address=${taken}`] })
      .then(() => 'started', (e: Error) => e.message);
    expect(refused).toContain(`cannot start: service.telemetry.metrics: cannot listen on ${taken}: EADDRINUSE`);
    const off = await startDaemon(config(await freePort()), { args: ['--config', 'tracehop.yaml', '--set', 'service.telemetry.metrics.address=none'] });
    try {
      expect(off.endpoints.metrics).toBeUndefined();
      expect(Object.keys(off.endpoints).sort()).toEqual(['http', 'otlp', 'otlp/guarded']);
    } finally {
      expect(await off.stop()).toBe(0);
    }
  });
});
