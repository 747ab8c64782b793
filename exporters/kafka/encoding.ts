// The value encodings of span-record.md "Kafka message" and the headers that name them.
import { encodeExportRequest, encodeExportRequestJson } from '../../pipeline/otlp/index.ts';
import type { Span } from '../../pipeline/span.ts';
import type { KafkaEncoding } from './config.ts';
import type { TraceEncoder } from './messages.ts';

export const CONTENT_TYPE: Record<KafkaEncoding, string> = {
  json: 'application/json',
  otlp_proto: 'application/x-protobuf',
  otlp_json: 'application/json',
};

export const ENCODING_HEADER: Record<KafkaEncoding, string> = {
  json: 'span-record-v1',
  otlp_proto: 'otlp_proto',
  otlp_json: 'otlp_json',
};

function encodeOtlpJson(spans: Span[]): Uint8Array {
  return Buffer.from(encodeExportRequestJson(spans), 'utf8');
}

/** The per-trace encoder of the otlp_* encodings; json encodes span by span instead. */
export function traceEncoder(encoding: Exclude<KafkaEncoding, 'json'>): TraceEncoder {
  return encoding === 'otlp_proto' ? encodeExportRequest : encodeOtlpJson;
}

/** Every message's headers (one shared Map) and their size inside a record. */
export function messageHeaders(encoding: KafkaEncoding, extra: Record<string, string>): { headers: Map<Buffer, Buffer>; bytes: number } {
  const headers = new Map<Buffer, Buffer>();
  let bytes = 5; // header count varint
  const add = (name: string, value: string) => {
    const k = Buffer.from(name, 'utf8');
    const v = Buffer.from(value, 'utf8');
    headers.set(k, v);
    bytes += k.length + v.length + 10; // two length varints, upper bound
  };
  add('content-type', CONTENT_TYPE[encoding]);
  add('tracehop-encoding', ENCODING_HEADER[encoding]);
  for (const [name, value] of Object.entries(extra)) add(name, value);
  return { headers, bytes };
}
