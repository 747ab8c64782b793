// The value encodings of span-record.md "Kafka message" and the headers that name them.
import { ExportRequestEncoder, type RequestSink } from '../../codec/otlp/encode-proto.ts';
import { encodeExportRequestJson } from '../../codec/otlp/index.ts';
import { ProtoWriter } from '../../codec/otlp/proto-writer.ts';
import type { Span } from '../../model/span.ts';
import type { KafkaEncoding } from './config.ts';
import type { TraceEncoder, TraceEncoderFor } from './messages.ts';

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

/** A writer bigger than this (a batch of huge spans) is let go rather than kept for the next export call. */
const KEEP_AT_MOST = 16 * 1024 * 1024;
/**
 * A kept writer is used again only while it is at most this many times the call's first guess (or at
 * most SMALL_ENOUGH): one grown by huge spans is let go once calls are normal again, instead of keeping
 * the burst's size for good.
 */
const OVERSIZE = 4;
const SMALL_ENOUGH = 1024 * 1024;

/**
 * The per-trace encoder of the otlp_* encodings; json encodes span by span instead.
 * otlp_proto cuts while it encodes (each span encoded once) into one buffer per export call: sized for
 * ~768 bytes a span (the benchmark's spans take ~720), it grows by doubling when spans are bigger.
 * Once the exporter has sent an export call's messages (`release`), the next call writes into the same
 * buffer: a fresh one per call was allocated, grown by copying for large spans and then collected
 * (measured for 256 LLM-call spans a call, ~10 KB each: a fifth of the encoding's time; docs/performance.md, round 0470).
 * Each exporter makes its own: the spare buffer and the encoder's key cache are never shared between pipelines.
 */
export function traceEncoder(encoding: Exclude<KafkaEncoding, 'json'>): TraceEncoderFor {
  if (encoding === 'otlp_proto') {
    const encoder = new ExportRequestEncoder();
    let spare: ProtoWriter | undefined;
    return (spanCount) => {
      const guess = Math.max(64 * 1024, spanCount * 768);
      const kept = spare !== undefined && spare.buf.length <= Math.max(SMALL_ENOUGH, OVERSIZE * guess) ? spare : undefined;
      const writer = kept ?? new ProtoWriter(guess);
      spare = undefined;
      writer.pos = 0;
      return {
        encode: (trace, limit, sink) => encoder.encodeRequests(writer, trace, limit, sink),
        release: () => {
          if (writer.buf.length <= KEEP_AT_MOST) spare = writer;
        },
      };
    };
  }
  return () => wholeRequestEncoder;
}

/**
 * otlp_json has no cutting encoder: the trace is encoded whole and, when too big, again in as many even
 * parts as its size suggests (a part still too big is cut again). Traces over the limit are rare.
 */
const wholeRequestEncoder: TraceEncoder = {
  encode(trace: Span[], limit: number, sink: RequestSink): void {
    encodeInParts(trace, 0, trace.length, limit, sink);
  },
};

function encodeInParts(trace: Span[], start: number, end: number, limit: number, sink: RequestSink): void {
  const part = start === 0 && end === trace.length ? trace : trace.slice(start, end);
  const value = Buffer.from(encodeExportRequestJson(part), 'utf8');
  if (value.length <= limit) {
    sink.request(value, trace, start, end);
    return;
  }
  const count = end - start;
  if (count === 1) {
    sink.tooLarge(trace[start], value.length);
    return;
  }
  const parts = Math.min(count, Math.ceil(value.length / limit) + 1);
  const step = Math.ceil(count / parts);
  for (let from = start; from < end; from += step) encodeInParts(trace, from, Math.min(from + step, end), limit, sink);
}

/** The header naming the project of the key a span was accepted with (span-record.md "Kafka message"). */
export const PROJECT_HEADER = 'tracehop-project';

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

/**
 * The headers of messages whose spans belong to `project`: the shared ones plus `tracehop-project`,
 * made once per project and kept (an exporter sees the few projects of its keys).
 */
export class ProjectHeaders {
  readonly #base: { headers: Map<Buffer, Buffer>; bytes: number };
  readonly #byProject = new Map<string, { headers: Map<Buffer, Buffer>; bytes: number }>();

  constructor(base: { headers: Map<Buffer, Buffer>; bytes: number }) {
    this.#base = base;
  }

  for(project: string | undefined): { headers: Map<Buffer, Buffer>; bytes: number } {
    if (project === undefined) return this.#base;
    let made = this.#byProject.get(project);
    if (made === undefined) {
      const k = Buffer.from(PROJECT_HEADER, 'utf8');
      const v = Buffer.from(project, 'utf8');
      made = { headers: new Map([...this.#base.headers, [k, v]]), bytes: this.#base.bytes + k.length + v.length + 10 };
      this.#byProject.set(project, made);
    }
    return made;
  }
}
