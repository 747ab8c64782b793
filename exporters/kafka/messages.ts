// Turns one export call's spans into Kafka messages (span-record.md "Kafka message"): key = trace id,
// value = one span (json) or one trace's spans of this batch (otlp_*), and a record of which spans each
// message carries, so that what cannot be sent is dead-lettered and nothing else.
import type { MessageToProduce } from '@platformatic/kafka';
import type { RequestSink } from '../../codec/otlp/encode-proto.ts';
import { BatchLinesEncoder } from '../../codec/record/index.ts';
import type { Span } from '../../model/span.ts';

export type KafkaMessage = MessageToProduce<Buffer, Buffer, Buffer, Buffer>;

/**
 * Encodes the traces of one export call (otlp_*): each trace into requests (message values) of at most
 * `limit` bytes, reported to `sink` in order, with the spans too large for a message on their own.
 */
export interface TraceEncoder {
  encode(trace: Span[], limit: number, sink: RequestSink): void;
  /** The messages made were sent and dropped: the encoder may write the next export call's into the same memory. */
  release?(): void;
}

/** A fresh encoder for one export call of `spanCount` spans (it may size one buffer for all of them). */
export type TraceEncoderFor = (spanCount: number) => TraceEncoder;

const NEWLINE = 0x0a;

/** Kafka record batch framing (magic v2): 61 bytes per batch, whatever it holds. */
export const BATCH_OVERHEAD = 61;
/** Per record beyond key, value and headers: length, attributes, deltas and lengths as varints (upper bound). */
const RECORD_OVERHEAD = 24;

export interface MessagePlan {
  messages: KafkaMessage[];
  /** Estimated bytes of each message inside a record batch. */
  sizes: number[];
  /** The spans of message i are `sources[i].slice(starts[i], ends[i])`. */
  sources: Span[][];
  starts: number[];
  ends: number[];
  /** Spans that alone make a message larger than `max_message_bytes`: never sendable. */
  tooLarge: Span[];
  /** Largest encoded size among `tooLarge`, for the log line. */
  tooLargeBytes: number;
  /** Call once every message was sent (or refused for good) and none is used again: see TraceEncoder.release. */
  release(): void;
}

export interface PlanOptions {
  topic: string;
  /** The headers of a message whose spans belong to `project` (undefined: none), and their bytes inside
   *  one record; the Maps are shared and never mutated. */
  headersFor(project: string | undefined): { headers: Map<Buffer, Buffer>; bytes: number };
  maxMessageBytes: number;
}

function emptyPlan(): MessagePlan {
  return { messages: [], sizes: [], sources: [], starts: [], ends: [], tooLarge: [], tooLargeBytes: 0, release: () => {} };
}

/** Largest value that still fits one message under the limit, beside its key and headers. */
function valueLimit(options: PlanOptions, keyBytes: number, headersBytes: number): number {
  return options.maxMessageBytes - BATCH_OVERHEAD - RECORD_OVERHEAD - headersBytes - keyBytes;
}

/**
 * `encoding: json`: one message per span, in batch order. The batch is encoded as JSON lines into one
 * buffer of `lines` (the file exporter's encoder, reused once the plan is released), and each message
 * value is a view of one line without its newline: a record holds no raw newline byte (JSON escapes
 * it, and no multi-byte UTF-8 sequence contains 0x0a). A Buffer per span was ~30% of the encoding's
 * time and the garbage behind it (docs/performance.md, round 0470).
 */
export function planJsonMessages(spans: Span[], options: PlanOptions, lines = new BatchLinesEncoder()): MessagePlan {
  const plan = emptyPlan();
  if (spans.length === 0) return plan;
  const bytes = lines.encode(spans);
  plan.release = () => lines.release(bytes);
  let lastTrace = '';
  let key: Buffer = Buffer.alloc(0);
  let start = 0;
  for (let i = 0; i < spans.length; i++) {
    const span = spans[i];
    // Spans of a trace usually sit together: one key buffer per run of a trace.
    if (span.traceId !== lastTrace) {
      lastTrace = span.traceId;
      key = Buffer.from(lastTrace, 'latin1');
    }
    const end = bytes.indexOf(NEWLINE, start);
    const value = bytes.subarray(start, end);
    start = end + 1;
    const headers = options.headersFor(span.project);
    if (value.length > valueLimit(options, key.length, headers.bytes)) {
      plan.tooLarge.push(span);
      if (value.length > plan.tooLargeBytes) plan.tooLargeBytes = value.length;
      continue;
    }
    push(plan, options.topic, headers, key, value, spans, i, i + 1);
  }
  return plan;
}

/**
 * `encoding: otlp_*`: one message per trace of the batch (traces in order of first appearance, spans in
 * batch order within a resource and scope). A trace too big for one message is cut into consecutive parts
 * with the same key.
 */
export function planTraceMessages(spans: Span[], encoderFor: TraceEncoderFor, options: PlanOptions): MessagePlan {
  const plan = emptyPlan();
  // By trace, and within a trace by project (a trace id sent under two keys stays two messages).
  const traces = new Map<string, Span[]>();
  for (let i = 0; i < spans.length; i++) {
    const span = spans[i];
    const group = span.project === undefined ? span.traceId : span.traceId + '\n' + span.project;
    const list = traces.get(group);
    if (list === undefined) traces.set(group, [span]);
    else list.push(span);
  }
  const encoder = encoderFor(spans.length);
  plan.release = () => encoder.release?.();
  const sink = new PlanSink(plan, options);
  for (const group of traces.values()) {
    sink.key = Buffer.from(group[0].traceId, 'latin1');
    sink.headers = options.headersFor(group[0].project);
    encoder.encode(group, valueLimit(options, sink.key.length, sink.headers.bytes), sink);
  }
  return plan;
}

/** Adds the requests of one trace (key) at a time to the plan as messages. */
class PlanSink implements RequestSink {
  key: Buffer = Buffer.alloc(0);
  headers: { headers: Map<Buffer, Buffer>; bytes: number } = { headers: new Map(), bytes: 0 };
  private readonly plan: MessagePlan;
  private readonly options: PlanOptions;

  constructor(plan: MessagePlan, options: PlanOptions) {
    this.plan = plan;
    this.options = options;
  }

  request(bytes: Uint8Array, order: Span[], start: number, end: number): void {
    push(this.plan, this.options.topic, this.headers, this.key, toBuffer(bytes), order, start, end);
  }

  tooLarge(span: Span, bytes: number): void {
    this.plan.tooLarge.push(span);
    if (bytes > this.plan.tooLargeBytes) this.plan.tooLargeBytes = bytes;
  }
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function push(
  plan: MessagePlan, topic: string, headers: { headers: Map<Buffer, Buffer>; bytes: number }, key: Buffer, value: Buffer,
  source: Span[], start: number, end: number,
): void {
  plan.messages.push({ topic, key, value, headers: headers.headers });
  plan.sizes.push(key.length + value.length + headers.bytes + RECORD_OVERHEAD);
  plan.sources.push(source);
  plan.starts.push(start);
  plan.ends.push(end);
}

/**
 * Cuts the plan into produce requests. Each request holds at most `maxMessageBytes` of records, so even
 * when every message goes to one partition its record batch stays under the broker's message size limit.
 * Returns the index where each request starts, plus the end.
 */
export function requestBounds(plan: MessagePlan, maxMessageBytes: number): number[] {
  const bounds = [0];
  const budget = maxMessageBytes - BATCH_OVERHEAD;
  let used = 0;
  for (let i = 0; i < plan.sizes.length; i++) {
    if (used > 0 && used + plan.sizes[i] > budget) {
      bounds.push(i);
      used = 0;
    }
    used += plan.sizes[i];
  }
  if (plan.sizes.length > 0) bounds.push(plan.sizes.length);
  return bounds;
}

/** The spans carried by messages `[from, to)`, for dead letters. */
export function spansOf(plan: MessagePlan, from: number, to: number): Span[] {
  const out: Span[] = [];
  for (let m = from; m < to; m++) {
    const source = plan.sources[m];
    for (let i = plan.starts[m]; i < plan.ends[m]; i++) out.push(source[i]);
  }
  return out;
}
