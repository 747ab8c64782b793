// OTLP/gRPC answers: OK with partial_success, INVALID_ARGUMENT, UNAVAILABLE, RESOURCE_EXHAUSTED, and the
// receive size limit set explicitly (grpc-js's own default is 4 MiB).
import { Client, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { silentLogger } from '../../pipeline/log.ts';
import { decodeExportResponse, ExportRequestEncoder } from '../../codec/otlp/index.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { Span } from '../../model/span.ts';
import { EXPORT_PATH } from '../../receivers/otlp/grpc-server.ts';
import { OtlpReceiver } from '../../receivers/otlp/receiver.ts';
import { RecordingConsumer, sdkSpans } from './helpers.ts';

const requestEncoder = new ExportRequestEncoder();

const consumer = new RecordingConsumer();
const MAX_SPANS = 50;
let receiver: OtlpReceiver;
let client: Client;

beforeAll(async () => {
  receiver = new OtlpReceiver({ protocols: { grpc: { endpoint: '127.0.0.1:0', max_recv_msg_size_mib: 6, max_spans_per_request: MAX_SPANS } } }, consumer, silentLogger);
  await receiver.start();
  client = new Client(`127.0.0.1:${receiver.grpc!.port()}`, credentials.createInsecure(), {
    'grpc.max_send_message_length': 64 * 1024 * 1024,
  });
});

afterAll(async () => {
  client.close();
  await receiver.shutdown();
});

beforeEach(() => {
  consumer.appended.length = 0;
  consumer.wireBytes.length = 0;
  consumer.appendError = undefined;
  consumer.admitRefusal = undefined;
  consumer.consumed = 0;
});

function call(body: Uint8Array): Promise<{ error: ServiceError | null; response?: Buffer }> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(EXPORT_PATH, (b: Uint8Array) => Buffer.from(b), (b: Buffer) => b, body, (error, response) => {
      resolve({ error, response });
    });
  });
}

function span(spanId: string, traceId = '4bf92f3577b34da6a3ce929d0e0e4736'): Span {
  return { traceId, spanId, name: 'n', kind: 1, startNs: 1n, endNs: 2n, status: { code: 0 }, attributes: new AttributeList() };
}

describe('otlp receiver over gRPC', () => {
  it('RESOURCE_EXHAUSTED for more spans than max_spans_per_request, nothing consumed', async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => span((i + 1).toString(16).padStart(16, '0')));
    const over = await call(requestEncoder.encode(many(MAX_SPANS + 1)));
    expect(over.error?.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(over.error?.details).toBe(`the request holds more than max_spans_per_request (${MAX_SPANS}) spans`);
    expect(consumer.consumed).toBe(0);
    expect((await call(requestEncoder.encode(many(MAX_SPANS)))).error).toBeNull();
    expect(consumer.appended).toHaveLength(MAX_SPANS);
  });

  it('OK with an empty response when every span is accepted', async () => {
    const spans = await sdkSpans(2);
    const body = ProtobufTraceSerializer.serializeRequest(spans)!;
    const { error, response } = await call(body);
    expect(error).toBeNull();
    expect(response).toHaveLength(0);
    expect(consumer.wireBytes).toEqual([body.length]);
    expect(consumer.appended.map((s) => s.spanId).sort()).toEqual(spans.map((s) => s.spanContext().spanId).sort());
  });

  it('OK with partial_success when some spans are rejected', async () => {
    const body = requestEncoder.encode([span('00f067aa0ba902b7'), span('0000000000000000')]);
    const { error, response } = await call(body);
    expect(error).toBeNull();
    expect(consumer.wireBytes).toEqual([Math.ceil(body.length / 2)]);
    expect(decodeExportResponse(response!)).toEqual({
      rejectedSpans: 1, errorMessage: '4bf92f3577b34da6a3ce929d0e0e4736/0000000000000000: invalid span_id',
    });
    expect(consumer.appended).toHaveLength(1);
  });

  it('INVALID_ARGUMENT when every span is rejected or the body cannot be decoded', async () => {
    const all = await call(requestEncoder.encode([span('0000000000000000')]));
    expect(all.error?.code).toBe(status.INVALID_ARGUMENT);
    expect(all.error?.details).toContain('invalid span_id');
    const garbage = await call(new Uint8Array([0x0a, 0x10, 0x01]));
    expect(garbage.error?.code).toBe(status.INVALID_ARGUMENT);
    expect(garbage.error?.details).toContain('cannot decode');
    expect(consumer.appended).toHaveLength(0);
  });

  it('UNAVAILABLE when refused (admission or stream), RESOURCE_EXHAUSTED for 429', async () => {
    const body = requestEncoder.encode([span('00f067aa0ba902b7')]);
    consumer.admitRefusal = { message: 'over memory limit', retryAfterMs: 1000 };
    expect((await call(body)).error?.code).toBe(status.UNAVAILABLE);
    expect(consumer.consumed).toBe(0);
    consumer.admitRefusal = undefined;
    consumer.refuse(503);
    expect((await call(body)).error?.code).toBe(status.UNAVAILABLE);
    consumer.refuse(429);
    expect((await call(body)).error?.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(consumer.appended).toHaveLength(0);
  });

  it('messages over max_recv_msg_size_mib are refused; below it they pass', async () => {
    const big = span('00f067aa0ba902b7');
    big.attributes.set('blob', 'x'.repeat(5 * 1024 * 1024));
    expect((await call(requestEncoder.encode([big]))).error).toBeNull();
    big.attributes.set('blob', 'x'.repeat(7 * 1024 * 1024));
    expect((await call(requestEncoder.encode([big]))).error?.code).toBe(status.RESOURCE_EXHAUSTED);
  });
});
