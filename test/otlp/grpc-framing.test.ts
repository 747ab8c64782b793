// OTLP/gRPC message framing answered as grpc-go answers it (receivers/otlp/grpc-frame-check.ts), seen
// from a hand-written HTTP/2 client: the compressed flag without a grpc-encoding is INTERNAL, a message
// over max_recv_msg_size_mib is RESOURCE_EXHAUSTED naming the key, and nothing of either is consumed.
import { gzipSync } from 'node:zlib';
import { status } from '@grpc/grpc-js';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExportRequestEncoder } from '../../codec/otlp/index.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { OtlpReceiver } from '../../receivers/otlp/receiver.ts';
import { RecordingConsumer, sdkSpans } from './helpers.ts';
import { grpcMessage, rawGrpcCall } from './raw-grpc.ts';
import { AttributeList } from '../../model/attributes/list.ts';

const MIB = 1024 * 1024;
const consumer = new RecordingConsumer();
let receiver: OtlpReceiver;
let port: number;
const oneSpan = new ExportRequestEncoder().encode([{
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', name: 'n', kind: 1, startNs: 1n, endNs: 2n,
  status: { code: 0 }, attributes: new AttributeList(),
}]);

beforeAll(async () => {
  receiver = new OtlpReceiver({ protocols: { grpc: { endpoint: '127.0.0.1:0', max_recv_msg_size_mib: 1 } } }, consumer, silentLogger);
  await receiver.start();
  port = receiver.grpc!.port();
});

afterAll(async () => {
  await receiver.shutdown();
});

beforeEach(() => {
  consumer.appended.length = 0;
  consumer.consumed = 0;
});

describe('gRPC message framing', () => {
  it('accepts a plain message and a gzip one flagged as compressed', async () => {
    expect(await rawGrpcCall(port, grpcMessage(oneSpan))).toMatchObject({ code: status.OK, rstCode: 0 });
    expect(await rawGrpcCall(port, grpcMessage(gzipSync(oneSpan), true), { 'grpc-encoding': 'gzip' })).toMatchObject({ code: status.OK });
    expect(consumer.appended).toHaveLength(2);
  });

  it('INTERNAL for the compressed flag without grpc-encoding, or with identity; nothing consumed', async () => {
    for (const headers of [{}, { 'grpc-encoding': 'identity' }] as Array<Record<string, string>>) {
      const answer = await rawGrpcCall(port, grpcMessage(oneSpan, true), headers);
      expect(answer).toEqual({
        code: status.INTERNAL, rstCode: 0,
        message: 'the message has the compressed flag set but the request names no grpc-encoding',
      });
    }
    expect(consumer.consumed).toBe(0);
  });

  it('RESOURCE_EXHAUSTED naming the limit for a message over max_recv_msg_size_mib, not a reset', async () => {
    const over = await rawGrpcCall(port, grpcMessage(Buffer.alloc(2 * MIB)));
    expect(over).toEqual({
      code: status.RESOURCE_EXHAUSTED, rstCode: 0,
      message: `the message is ${2 * MIB} bytes, over max_recv_msg_size_mib (1 MiB)`,
    });
    // Only the prefix arrives: the answer does not wait for 100 MiB that never come.
    const declared = await rawGrpcCall(port, grpcMessage(Buffer.alloc(0), false, 100 * MIB));
    expect(declared).toMatchObject({ code: status.RESOURCE_EXHAUSTED, message: `the message is ${100 * MIB} bytes, over max_recv_msg_size_mib (1 MiB)` });
    // Flagged as compressed without an encoding and too long: the size is judged first, as grpc-go does.
    expect(await rawGrpcCall(port, grpcMessage(Buffer.alloc(0), true, 2 * MIB))).toMatchObject({ code: status.RESOURCE_EXHAUSTED });
    expect(consumer.consumed).toBe(0);
  });

  it('RESOURCE_EXHAUSTED for a gzip message that inflates past the limit (grpc-js bounds the inflation)', async () => {
    const answer = await rawGrpcCall(port, grpcMessage(gzipSync(Buffer.alloc(4 * MIB)), true), { 'grpc-encoding': 'gzip' });
    expect(answer.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(consumer.consumed).toBe(0);
  });

  it('still serves the real OpenTelemetry gRPC exporter, with and without gzip', async () => {
    for (const compression of [undefined, 'gzip']) {
      consumer.appended.length = 0;
      const exporter = new GrpcExporter({ url: `http://127.0.0.1:${port}`, ...(compression ? { compression: compression as never } : {}) });
      const spans = await sdkSpans(3, [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 20 })]);
      await consumer.waitFor(spans.length);
      expect(consumer.appended.map((s) => s.spanId).sort()).toEqual(spans.map((s) => s.spanContext().spanId).sort());
      await exporter.shutdown();
    }
  });
});
