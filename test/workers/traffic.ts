// What the worker tests send and read: tracing API requests each on a connection of its own (so the
// primary hands them to different workers), OTLP/HTTP batches from the real OpenTelemetry JS exporter,
// and the span ids the file exporters wrote.
import { readdir, readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { OTLPTraceExporter as OTLPGrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { EndedSpans } from '../helpers/ended-spans.ts';

/** `n` as a span id (16 hex digits). */
export function spanId(n: number): string {
  return n.toString(16).padStart(16, '0');
}

/** How long a client waits for an answer (an SDK's export timeout is 10 s). */
const CLIENT_DEADLINE_MS = 5000;

/**
 * POSTs one span to the tracing API on a new connection; resolves with the status, or 0 when the
 * connection failed or no answer came before CLIENT_DEADLINE_MS: then the span was not acknowledged.
 * The deadline matters when a worker is killed: a connection node:cluster's primary was handing to that
 * worker at that moment is never answered (the primary does not hear back and does not close it).
 */
export function postSpan(baseUrl: string, id: string): Promise<number> {
  const body = JSON.stringify({ spans: [{ trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: id, span_name: 'api', start_time: 1776363498, end_time: 1776363499 }] });
  const url = new URL('/tracing/spans/ingest', baseUrl);
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.setTimeout(CLIENT_DEADLINE_MS, () => req.destroy());
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/**
 * The real OTLP/HTTP protobuf exporter (or, for a `grpc://` address, the gRPC one); `send(n)` exports n
 * new spans and resolves with their ids when acknowledged, else [].
 */
export function otlpSender(otlpUrl: string): { send(n: number): Promise<string[]>; shutdown(): Promise<void> } {
  const exporter = otlpUrl.startsWith('grpc://')
    ? new OTLPGrpcExporter({ url: otlpUrl.replace('grpc://', 'http://'), timeoutMillis: 30_000 })
    : new OTLPTraceExporter({ url: `${otlpUrl}/v1/traces`, timeoutMillis: 30_000 });
  const ended = new EndedSpans();
  const tracer = new TracerProvider({ spanProcessors: [ended] }).getTracer('workers-test');
  return {
    send(n: number) {
      for (let i = 0; i < n; i++) tracer.startSpan('otlp').end();
      const batch = ended.take();
      return new Promise((resolve) => exporter.export(batch, (result) => {
        // 0: ExportResultCode.SUCCESS (of @opentelemetry/core, not a dependency of its own here).
        resolve(result.code === 0 ? batch.map((s) => s.spanContext().spanId) : []);
      }));
    },
    shutdown: () => exporter.shutdown(),
  };
}

/** The span ids in every file of `dir` whose name starts with `prefix` and ends with `.jsonl`. */
export async function writtenIds(dir: string, prefix: string): Promise<{ files: Record<string, number>; ids: string[] }> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith(prefix) && n.endsWith('.jsonl')).sort();
  const files: Record<string, number> = {};
  const ids: string[] = [];
  for (const name of names) {
    const lines = (await readFile(join(dir, name), 'utf8')).split('\n').filter((l) => l !== '');
    files[name] = lines.length;
    for (const line of lines) ids.push((JSON.parse(line) as { span_id: string }).span_id);
  }
  return { files, ids };
}

/** Polls `check` every 50 ms until it returns true; false after `ms` (a guard against hanging only). */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 30_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}
