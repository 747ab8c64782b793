// Real OpenTelemetry JS clients, unmodified, deliver to the otlp receiver started in-process: every span
// arrives with its ids, times, attributes, events, links, resource and scope.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTLPTraceExporter as HttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace';
import { silentLogger } from '../../pipeline/log.ts';
import { OtlpReceiver } from '../../receivers/otlp/receiver.ts';
import { expectedFields, receivedFields, RecordingConsumer, sdkSpans } from './helpers.ts';

const consumer = new RecordingConsumer();
let receiver: OtlpReceiver;
let httpBase: string;
let grpcUrl: string;
/** Content-Type / Content-Encoding of each HTTP request the receiver's server saw. */
const seen: Array<{ type?: string; encoding?: string }> = [];
const onRequest = (message: unknown) => {
  const request = (message as { request: IncomingMessage }).request;
  seen.push({ type: request.headers['content-type'], encoding: request.headers['content-encoding'] });
};

beforeAll(async () => {
  receiver = new OtlpReceiver({ protocols: { http: { endpoint: '127.0.0.1:0' }, grpc: { endpoint: '127.0.0.1:0' } } }, consumer, silentLogger);
  await receiver.start();
  httpBase = receiver.endpoints()[0];
  grpcUrl = `http://127.0.0.1:${receiver.grpc!.port()}`;
  subscribe('http.server.request.start', onRequest);
});

afterAll(async () => {
  unsubscribe('http.server.request.start', onRequest);
  await receiver.shutdown();
});

async function deliver(exporter: SpanExporter) {
  consumer.appended.length = 0;
  seen.length = 0;
  const processor = new BatchSpanProcessor({ exporter, scheduledDelayMillis: 20 });
  const spans = await sdkSpans(5, [processor]);
  await consumer.waitFor(spans.length);
  return spans;
}

function byId<T extends { spanId: string }>(list: T[]): T[] {
  return [...list].sort((a, b) => a.spanId.localeCompare(b.spanId));
}

describe('real OpenTelemetry JS exporters deliver to the otlp receiver', () => {
  it('exporter-trace-otlp-http (OTLP/JSON)', async () => {
    const spans = await deliver(new HttpJsonExporter({ url: `${httpBase}/v1/traces` }));
    expect(byId(consumer.appended.map(receivedFields))).toEqual(byId(spans.map(expectedFields)));
    expect(seen.some((r) => r.type?.startsWith('application/json'))).toBe(true);
  });

  it('exporter-trace-otlp-proto without compression', async () => {
    const spans = await deliver(new ProtoExporter({ url: `${httpBase}/v1/traces` }));
    expect(byId(consumer.appended.map(receivedFields))).toEqual(byId(spans.map(expectedFields)));
    expect(seen.every((r) => r.type === 'application/x-protobuf' && r.encoding === undefined)).toBe(true);
  });

  it('exporter-trace-otlp-proto with gzip, to the tracing backend\'s path', async () => {
    const spans = await deliver(new ProtoExporter({ url: `${httpBase}/api/otlp/v1/traces`, compression: 'gzip' as never }));
    expect(byId(consumer.appended.map(receivedFields))).toEqual(byId(spans.map(expectedFields)));
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.encoding === 'gzip')).toBe(true);
  });

  it('exporter-trace-otlp-grpc', async () => {
    const spans = await deliver(new GrpcExporter({ url: grpcUrl }));
    expect(byId(consumer.appended.map(receivedFields))).toEqual(byId(spans.map(expectedFields)));
  });

  it('exporter-trace-otlp-grpc with gzip', async () => {
    const spans = await deliver(new GrpcExporter({ url: grpcUrl, compression: 'gzip' as never }));
    expect(byId(consumer.appended.map(receivedFields))).toEqual(byId(spans.map(expectedFields)));
  });

  it('the namespace processor ran on OTLP batches (semconv mapped, types resolved)', () => {
    const root = consumer.appended.find((s) => s.name === 'workflow');
    expect(root?.attributes.get('gen_ai.request.model')).toBe('gpt-4o');
    expect(typeof root?.spanType).toBe('string');
    // The trace holds a span with a link, so it is an annotation (ag-namespace.md §4.2).
    expect(root?.attributes.get('ag.type.trace')).toBe('annotation');
    expect(root?.traceType).toBe('annotation');
  });
});
