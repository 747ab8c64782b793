// ServiceMetrics on its own and fed by a real export runner over a memory stream; the one fake is an
// exporter scripted to fail. The daemon-level test (test/telemetry) reads the same through /metrics.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeSpans } from '../../test/helpers/spans.ts';
import { runProcess } from '../../test/helpers/process.ts';
import type { Batcher, Exporter } from '../component.ts';
import { DeadLetterFile } from '../deadletter.ts';
import { PermanentError, RetryableError } from '../errors.ts';
import { silentLogger } from '../log.ts';
import { ExportRunner, SerialExporter } from '../runner.ts';
import type { Span } from '../../model/span.ts';
import { MemoryStream } from '../stream/memory.ts';
import { ServiceMetrics } from './metrics.ts';

/** The sample lines of the exposition (no comments), for exact comparison. */
async function samples(metrics: ServiceMetrics, prefix: string): Promise<string[]> {
  return (await metrics.text()).split('\n').filter((line) => line.startsWith(prefix));
}

const sendAll: Batcher = { sync: false, deliverySpans: 1000, gather: (r, s) => r.read(1000, s), split: (spans) => [spans] };

describe('ServiceMetrics', () => {
  it('counts a receiver\'s spans and requests by reason, with its series at 0 from the start', async () => {
    const metrics = new ServiceMetrics();
    const http = metrics.receiver('http', 'http');
    expect(await samples(metrics, 'tracehop_receiver_accepted_spans_total')).toEqual([
      'tracehop_receiver_accepted_spans_total{receiver="http",transport="http"} 0',
    ]);
    http.accepted(5);
    http.accepted(0);
    http.refusedSpans('invalid', 2);
    http.refusedSpans('stream_full', 0);
    http.answered('/tracing/spans/ingest', 202, undefined, performance.now());
    http.answered('/tracing/spans/ingest', 503, 'memory', performance.now());
    http.answered('/tracing/spans/ingest', 503, 'memory', performance.now());
    expect(await samples(metrics, 'tracehop_receiver_')).toEqual([
      'tracehop_receiver_accepted_spans_total{receiver="http",transport="http"} 5',
      'tracehop_receiver_refused_spans_total{receiver="http",transport="http",reason="invalid"} 2',
      'tracehop_receiver_refused_requests_total{receiver="http",transport="http",reason="memory"} 2',
    ]);
    expect(await samples(metrics, 'tracehop_http_server_request_duration_seconds_count')).toEqual([
      'tracehop_http_server_request_duration_seconds_count{receiver="http",route="/tracing/spans/ingest",status="202"} 1',
      'tracehop_http_server_request_duration_seconds_count{receiver="http",route="/tracing/spans/ingest",status="503"} 2',
    ]);
  });

  it('reads stream and backlog gauges when scraped, and drops a pipeline that is gone', async () => {
    const metrics = new ServiceMetrics();
    let pipelines = [
      { id: 'traces', bytes: () => 300, maxBytes: () => 1000, segments: () => 2, exporters: [{ id: 'kafka', backlogSpans: () => 7, backlogBytes: () => 120 }] },
      { id: 'traces/mem', bytes: () => 10, maxBytes: () => 100, segments: () => undefined, exporters: [{ id: 'file', backlogSpans: () => 0, backlogBytes: () => undefined }] },
    ];
    metrics.readPipelines(() => pipelines);
    expect(await samples(metrics, 'tracehop_stream_')).toEqual([
      'tracehop_stream_bytes{pipeline="traces"} 300',
      'tracehop_stream_bytes{pipeline="traces/mem"} 10',
      'tracehop_stream_max_bytes{pipeline="traces"} 1000',
      'tracehop_stream_max_bytes{pipeline="traces/mem"} 100',
      'tracehop_stream_segments{pipeline="traces"} 2',
    ]);
    expect(await samples(metrics, 'tracehop_exporter_backlog')).toEqual([
      'tracehop_exporter_backlog_spans{exporter="kafka",pipeline="traces"} 7',
      'tracehop_exporter_backlog_spans{exporter="file",pipeline="traces/mem"} 0',
      'tracehop_exporter_backlog_bytes{exporter="kafka",pipeline="traces"} 120',
    ]);
    pipelines = pipelines.slice(0, 1);
    expect(await samples(metrics, 'tracehop_stream_bytes')).toEqual(['tracehop_stream_bytes{pipeline="traces"} 300']);
  });

  it('keeps two graphs\' counts apart (a registry each)', async () => {
    const a = new ServiceMetrics();
    const b = new ServiceMetrics();
    a.receiver('otlp', 'grpc').accepted(3);
    b.receiver('otlp', 'grpc');
    expect(await samples(a, 'tracehop_receiver_accepted')).toEqual(['tracehop_receiver_accepted_spans_total{receiver="otlp",transport="grpc"} 3']);
    expect(await samples(b, 'tracehop_receiver_accepted')).toEqual(['tracehop_receiver_accepted_spans_total{receiver="otlp",transport="grpc"} 0']);
  });

  it('counts a runner\'s deliveries: sent, each failed attempt, and dead letters, per export call', async () => {
    // Call 1: retryable failure; call 2: permanent failure naming 1 of the 4 spans (3 delivered).
    let calls = 0;
    const exporter: Exporter = {
      async start() {},
      async shutdown() {},
      async export(spans: Span[]) {
        calls++;
        if (calls === 1) throw new RetryableError('peer down');
        if (calls === 2) throw new PermanentError('one bad span', { spans: [spans[0]] });
      },
    };
    const metrics = new ServiceMetrics();
    const stream = new MemoryStream({ maxBytes: 1 << 24, retryAfterMs: 1000 });
    const dir = await mkdtemp(join(tmpdir(), 'tracehop-metrics-'));
    const runner = new ExportRunner({
      exporterId: 'otlp', pipelineId: 'traces', stream, batcher: sendAll,
      exporter: new SerialExporter(exporter), retry: { initial_interval: 5, max_interval: 5, multiplier: 1 },
      maxAttempts: 3, deadLetters: new DeadLetterFile(join(dir, 'dead.jsonl'), 'otlp'), logger: silentLogger,
      metrics: metrics.exporter('otlp', 'traces'),
    });
    await stream.append(makeSpans(4));
    stream.seal();
    runner.start();
    await runner.drained();
    expect((await samples(metrics, 'tracehop_exporter_')).filter((line) => line.includes('_total'))).toEqual([
      'tracehop_exporter_sent_spans_total{exporter="otlp"} 3',
      'tracehop_exporter_send_failed_spans_total{exporter="otlp"} 5',
      'tracehop_exporter_deadlettered_spans_total{exporter="otlp"} 1',
    ]);
    expect(await samples(metrics, 'tracehop_exporter_send_duration_seconds_count')).toEqual([
      'tracehop_exporter_send_duration_seconds_count{exporter="otlp",outcome="failed"} 2',
      'tracehop_exporter_send_duration_seconds_count{exporter="otlp",outcome="sent"} 1',
    ]);
    expect(await samples(metrics, 'tracehop_batch_size_spans_count')).toEqual(['tracehop_batch_size_spans_count{pipeline="traces",exporter="otlp"} 1']);
  });
});

describe('ServiceMetrics start-up', () => {
  it('serves the process metrics without loading prom-client\'s push gateway (node:https, and with it node:tls)', async () => {
    // A fresh Node, since this test process may have loaded them already: it builds the metrics of a
    // daemon that serves them, reads them once and lists the Node modules loaded by then.
    const metrics = fileURLToPath(new URL('./metrics.ts', import.meta.url));
    const script = `
      const { ServiceMetrics } = await import(${JSON.stringify(metrics)});
      const m = new ServiceMetrics();
      m.collectProcessMetrics();
      const text = await m.text();
      process.stdout.write(JSON.stringify({ text, loaded: process.moduleLoadList }));`;
    const run = await runProcess(process.execPath, ['--input-type=module', '-e', script]);
    expect(run.stderr).toBe('');
    const { text, loaded } = JSON.parse(run.stdout) as { text: string; loaded: string[] };
    expect(text).toMatch(/^tracehop_process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^tracehop_nodejs_heap_size_used_bytes \d/m);
    for (const unused of ['https', 'tls']) expect(loaded).not.toContain(`NativeModule ${unused}`);
  }, 20_000);
});
