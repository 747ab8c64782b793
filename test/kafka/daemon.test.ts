// End to end: the built daemon (`dist/cmd/main.js`) as a child process, spans POSTed to its tracing API
// over real HTTP, three kafka exporters (json, otlp_proto, otlp_json) and a file exporter in the same
// pipeline. The file exporter's records are the reference: the Kafka json values must equal them byte
// for byte, and the OTLP messages must decode to the same spans. An independent consumer reads back.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { decodeExportRequestJson } from '../../codec/otlp/index.ts';
import { decodeExportRequest } from '../helpers/otlp-decode.ts';
import { formatTimeNs } from '../../codec/record/index.ts';
import type { Span } from '../../model/span.ts';
import { startDaemon, type Daemon } from '../helpers/daemon.ts';
import { readTopic, uniqueTopic, type ReadMessage } from './helpers.ts';

const bootstrap = inject('kafkaBootstrap');
const topics = { json: uniqueTopic('e2e_json'), otlp_proto: uniqueTopic('e2e_proto'), otlp_json: uniqueTopic('e2e_ojson') };

const TRACES = 25;
const PER_TRACE = 4;
const SPANS = TRACES * PER_TRACE;

function config(): string {
  const exporter = (encoding: keyof typeof topics) => `
  kafka/${encoding}:
    brokers: [${bootstrap}]
    topic: ${topics[encoding]}
    encoding: ${encoding}
    compression: lz4
    headers: { x-origin: e2e }
    create_topic: { partitions: 3, replication_factor: 1 }`;
  return `receivers:
  http:
    endpoint: 127.0.0.1:0
processors:
  batch:
    timeout: 20ms
exporters:${exporter('json')}${exporter('otlp_proto')}${exporter('otlp_json')}
  file:
    path: ./spans.jsonl
    flush_interval: 0
storage: memory
service:
  pipelines:
    traces:
      receivers: [http]
      processors: [flatten, validate, namespace, batch]
      exporters: [kafka/json, kafka/otlp_proto, kafka/otlp_json, file]
`;
}

interface SentSpan {
  trace_id: string;
  span_id: string;
  parent_id?: string;
  span_name: string;
  start_time: string;
  end_time: string;
  attributes: Record<string, unknown>;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** Traces interleaved across requests: request r holds step r of every trace. */
function requests(): SentSpan[][] {
  const out: SentSpan[][] = [];
  for (let step = 0; step < PER_TRACE; step++) {
    const request: SentSpan[] = [];
    for (let t = 0; t < TRACES; t++) {
      request.push({
        trace_id: 'e2e0' + hex(t + 1, 28),
        span_id: hex(t + 1, 8) + hex(step + 1, 8),
        ...(step > 0 ? { parent_id: hex(t + 1, 8) + hex(step, 8) } : {}),
        span_name: `step-${step}`,
        start_time: `2026-04-16T18:18:${String(10 + step).padStart(2, '0')}.123456789Z`,
        end_time: `2026-04-16T18:18:${String(10 + step).padStart(2, '0')}.5Z`,
        attributes: { ag: { data: { inputs: { q: `trace ${t} step ${step}` } } }, 'gen_ai.request.model': 'gpt-4o', step },
      });
    }
    out.push(request);
  }
  return out;
}

let daemon: Daemon;
let fileRecords: Map<string, string>;
const sent = requests();
const order = new Map<string, string[]>(); // trace id -> span ids in sending order
for (const request of sent) for (const s of request) order.set(s.trace_id, [...(order.get(s.trace_id) ?? []), s.span_id]);

beforeAll(async () => {
  daemon = await startDaemon(config());
  for (const spans of sent) {
    const res = await fetch(`${daemon.url('http')}/tracing/spans/ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ spans }),
    });
    expect(res.status).toBe(202);
  }
  // The file exporter's records: what the pipeline made of the spans.
  for (let attempt = 0; attempt < 200; attempt++) {
    const lines = (await readFile(join(daemon.dir, 'spans.jsonl'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
    if (lines.length >= SPANS) {
      fileRecords = new Map(lines.map((l) => [(JSON.parse(l) as { span_id: string }).span_id, l]));
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(fileRecords?.size).toBe(SPANS);
});

afterAll(async () => {
  expect(await daemon?.stop()).toBe(0);
});

/** Messages of one key in partition order; checks a key never spans two partitions. */
function ordered(messages: ReadMessage[], key: string): ReadMessage[] {
  const mine = messages.filter((m) => m.key === key);
  expect(new Set(mine.map((m) => m.partition)).size).toBe(1);
  return mine.sort((a, b) => (a.offset < b.offset ? -1 : 1));
}

describe('daemon -> kafka, end to end', () => {
  it('json: every span once, byte-identical to the file record, keyed and ordered by trace', async () => {
    const messages = await readTopic(bootstrap, topics.json, SPANS);
    expect(messages).toHaveLength(SPANS);
    for (const m of messages) {
      const record = JSON.parse(m.value.toString('utf8')) as { span_id: string; trace_id: string };
      expect(m.value.toString('utf8')).toBe(fileRecords.get(record.span_id));
      expect(m.key).toBe(record.trace_id);
      expect(Object.fromEntries(m.headers)).toEqual({ 'content-type': 'application/json', 'tracehop-encoding': 'span-record-v1', 'x-origin': 'e2e' });
    }
    for (const [traceId, spanIds] of order) {
      const ids = ordered(messages, traceId).map((m) => (JSON.parse(m.value.toString('utf8')) as { span_id: string }).span_id);
      expect(ids).toEqual(spanIds);
    }
  });

  it.each([
    ['otlp_proto', decodeExportRequest, 'application/x-protobuf'],
    ['otlp_json', decodeExportRequestJson, 'application/json'],
  ] as const)('%s: messages decode to exactly the spans sent, one trace per message, in order', async (encoding, decode, contentType) => {
    // At least one message per trace; the batch processor decides how many requests share a message.
    const messages = await readTopic(bootstrap, topics[encoding], TRACES, { settleMs: 2000 });
    const all: Span[] = [];
    for (const m of messages) {
      expect(Object.fromEntries(m.headers)).toEqual({ 'content-type': contentType, 'tracehop-encoding': encoding, 'x-origin': 'e2e' });
      const spans = decode(m.value).spans;
      expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([m.key]));
      all.push(...spans);
    }
    expect(all).toHaveLength(SPANS);
    expect(new Set(all.map((s) => s.spanId)).size).toBe(SPANS);
    for (const span of all) {
      const record = JSON.parse(fileRecords.get(span.spanId)!) as Record<string, unknown> & { attributes: Record<string, unknown> };
      expect(span.traceId).toBe(record.trace_id);
      expect(span.parentId).toBe(record.parent_id);
      expect(span.name).toBe(record.span_name);
      expect(formatTimeNs(span.startNs)).toBe(record.start_time);
      expect(formatTimeNs(span.endNs)).toBe(record.end_time);
      // Every attribute of the record rides in the OTLP span, same value, same order.
      expect(Object.fromEntries(span.attributes)).toEqual(record.attributes);
      expect([...span.attributes.keys()]).toEqual(Object.keys(record.attributes));
    }
    for (const [traceId, spanIds] of order) {
      const ids = ordered(messages, traceId).flatMap((m) => decode(m.value).spans.map((s) => s.spanId));
      expect(ids).toEqual(spanIds);
    }
  });
});
