// @opentelemetry/otlp-transformer as the oracle: its protobuf and JSON bytes decode to the spans the SDK
// recorded; our encoder's output decodes back identically; and tracehop's exporter delivers to
// tracehop's receiver without changing a span (the faithful-forward path).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { silentLogger } from '../../pipeline/log.ts';
import {
  decodeExportRequestJson, ExportRequestEncoder, encodeExportRequestJson,
} from '../../codec/otlp/index.ts';
import { decodeExportRequest } from '../helpers/otlp-decode.ts';
import { OtlpExporter } from '../../exporters/otlp/otlp-exporter.ts';
import { OtlpReceiver } from '../../receivers/otlp/receiver.ts';
import { expectedFields, RecordingConsumer, sdkSpans } from './helpers.ts';

const requestEncoder = new ExportRequestEncoder();

let spans: ReadableSpan[];
beforeAll(async () => {
  spans = await sdkSpans(4);
});

/** Every canonical field the SDK determines, including the OTLP-only ones. */
function oracle(rs: ReadableSpan) {
  const e = expectedFields(rs);
  const ctx = rs.spanContext();
  return {
    traceId: e.traceId, spanId: e.spanId, ...(e.parentId ? { parentId: e.parentId } : {}), name: e.name, kind: e.kind,
    startNs: e.startNs, endNs: e.endNs, status: e.status, attributes: e.attributes,
    ...(e.events ? { events: e.events } : {}),
    ...(e.links ? { links: e.links.map((l) => ({ ...l, flags: 0x101 })) } : {}),
    resource: e.resource, scope: e.scope,
    // The SDK sends trace flags plus the "has is-remote" bit (0x100).
    otlp: { flags: ctx.traceFlags | 0x100 },
  };
}

describe('codec against the otlp-transformer oracle', () => {
  it('ProtobufTraceSerializer bytes decode to the SDK\'s spans', () => {
    const decoded = decodeExportRequest(ProtobufTraceSerializer.serializeRequest(spans)!).spans;
    expect(decoded).toEqual(spans.map(oracle));
  });

  it('JsonTraceSerializer bytes decode to the same spans as the protobuf bytes', () => {
    const fromJson = decodeExportRequestJson(JsonTraceSerializer.serializeRequest(spans)!).spans;
    const fromProto = decodeExportRequest(ProtobufTraceSerializer.serializeRequest(spans)!).spans;
    expect(fromJson).toStrictEqual(fromProto);
  });

  it('our encoder\'s protobuf and JSON output decode back identically', () => {
    const decoded = decodeExportRequest(ProtobufTraceSerializer.serializeRequest(spans)!).spans;
    expect(decodeExportRequest(requestEncoder.encode(decoded)).spans).toStrictEqual(decoded);
    expect(decodeExportRequestJson(Buffer.from(encodeExportRequestJson(decoded))).spans).toStrictEqual(decoded);
  });
});

describe('otlp exporter -> otlp receiver', () => {
  const consumer = new RecordingConsumer({ namespace: false });
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = new OtlpReceiver({ protocols: { http: { endpoint: '127.0.0.1:0' } } }, consumer, silentLogger);
    await receiver.start();
  });
  afterAll(() => receiver.shutdown());

  for (const encoding of ['proto', 'json'] as const) {
    it(`${encoding}: every span arrives unchanged`, async () => {
      consumer.appended.length = 0;
      const original = decodeExportRequest(ProtobufTraceSerializer.serializeRequest(spans)!).spans;
      const exporter = new OtlpExporter({
        endpoint: receiver.endpoints()[0], encoding, compression: 'gzip', headers: {}, timeout: 5000, max_request_spans: 3,
        retry: { initial_interval: 1000, max_interval: 30000, multiplier: 1.5 },
        dead_letter: { path: 'unused', max_attempts: 10 },
      }, silentLogger);
      await exporter.start();
      await exporter.export(original);
      expect(exporter.stats.requests).toBe(Math.ceil(original.length / 3));
      expect(consumer.appended).toStrictEqual(original);
    });
  }
});
