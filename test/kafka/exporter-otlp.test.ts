// The kafka exporter against the real broker, `encoding: otlp_proto | otlp_json`: one message per trace
// per batch, read back with the project's own OTLP decoders.
import { describe, expect, inject, it } from 'vitest';
import { KafkaExporter } from '../../exporters/kafka/kafka-exporter.ts';
import { decodeExportRequestJson } from '../../codec/otlp/index.ts';
import { decodeExportRequest } from '../helpers/otlp-decode.ts';
import type { Span } from '../../model/span.ts';
import { context, createTopic, kafkaConfig, makeSpans, readTopic, recordingLogger, uniqueTopic, type ReadMessage } from './helpers.ts';

const bootstrap = inject('kafkaBootstrap');

const DECODERS = {
  otlp_proto: { decode: decodeExportRequest, contentType: 'application/x-protobuf' },
  otlp_json: { decode: decodeExportRequestJson, contentType: 'application/json' },
} as const;

/** What must survive the trip: ids, names, times, status, attributes (order and types), resource, scope. */
function essence(span: Span) {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    parentId: span.parentId,
    name: span.name,
    kind: span.kind,
    startNs: span.startNs,
    endNs: span.endNs,
    status: span.status.code,
    attributes: [...span.attributes],
    resource: [...(span.resource ?? [])],
    scope: { name: span.scope?.name, version: span.scope?.version },
  };
}

async function exportAndRead(encoding: keyof typeof DECODERS, batches: Span[][], extra: Record<string, unknown> = {}) {
  const topic = uniqueTopic(encoding);
  await createTopic(bootstrap, topic, 3);
  const { logger } = recordingLogger();
  const exporter = new KafkaExporter(kafkaConfig({ brokers: [bootstrap], topic, encoding, ...extra }), context(logger));
  await exporter.start();
  for (const batch of batches) await exporter.export(batch);
  await exporter.shutdown();
  return topic;
}

function decodeAll(encoding: keyof typeof DECODERS, messages: ReadMessage[]): Array<{ message: ReadMessage; spans: Span[] }> {
  return messages.map((message) => ({ message, spans: DECODERS[encoding].decode(message.value).spans }));
}

describe.each(['otlp_proto', 'otlp_json'] as const)('kafka exporter, encoding %s', (encoding) => {
  it('writes one message per trace per batch that decodes to exactly the spans sent, in order', async () => {
    const spans = makeSpans(12, 5);
    const batches = [spans.slice(0, 30), spans.slice(30)];
    const topic = await exportAndRead(encoding, batches);
    // Each batch holds pieces of all 12 traces: 12 messages per batch.
    const messages = await readTopic(bootstrap, topic, 24);
    expect(messages).toHaveLength(24);

    const decoded = decodeAll(encoding, messages);
    const received = new Map<string, Span[]>();
    for (const { message, spans: inMessage } of decoded) {
      expect(Object.fromEntries(message.headers)).toEqual({
        'content-type': DECODERS[encoding].contentType,
        'tracehop-encoding': encoding,
      });
      expect(new Set(inMessage.map((s) => s.traceId))).toEqual(new Set([message.key]));
      received.set(message.key, [...(received.get(message.key) ?? []), ...inMessage]);
    }
    // Per trace, in partition order: the spans of batch 1 then batch 2, each in the order sent.
    for (const [traceId, got] of received) {
      const expected = spans.filter((s) => s.traceId === traceId);
      const ordered = decoded
        .filter((d) => d.message.key === traceId)
        .sort((a, b) => (a.message.offset < b.message.offset ? -1 : 1))
        .flatMap((d) => d.spans);
      expect(ordered.map(essence)).toEqual(expected.map(essence));
      expect(got).toHaveLength(5);
    }
    expect(received.size).toBe(12);
  });

  it('splits a trace too big for one message into several with the same key, losing nothing', async () => {
    const spans = makeSpans(1, 40, { payloadBytes: 400 });
    const topic = await exportAndRead(encoding, [spans], { max_message_bytes: 6000 });
    const messages = await readTopic(bootstrap, topic, 2, { settleMs: 1500 });
    expect(messages.length).toBeGreaterThan(2);
    for (const m of messages) {
      expect(m.key).toBe(spans[0].traceId);
      expect(m.value.length).toBeLessThanOrEqual(6000);
    }
    const ordered = decodeAll(encoding, messages.sort((a, b) => (a.offset < b.offset ? -1 : 1))).flatMap((d) => d.spans);
    expect(ordered.map(essence)).toEqual(spans.map(essence));
  });
});
