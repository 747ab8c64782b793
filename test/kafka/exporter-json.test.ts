// The kafka exporter against the real broker, `encoding: json` (span-record.md "Kafka message").
import { describe, expect, inject, it } from 'vitest';
import { KafkaExporter } from '../../exporters/kafka/kafka-exporter.ts';
import { PermanentError } from '../../pipeline/errors.ts';
import { encodeSpanJson } from '../../codec/record/index.ts';
import type { Span } from '../../model/span.ts';
import { context, createTopic, kafkaConfig, makeSpans, readTopic, recordingLogger, uniqueTopic, type ReadMessage } from './helpers.ts';

const bootstrap = inject('kafkaBootstrap');

/** Messages of each key, in offset order, after checking that a key never spans two partitions. */
function byKey(messages: ReadMessage[]): Map<string, ReadMessage[]> {
  const groups = new Map<string, ReadMessage[]>();
  for (const m of messages) {
    const group = groups.get(m.key) ?? [];
    group.push(m);
    groups.set(m.key, group);
  }
  for (const [key, group] of groups) {
    expect(new Set(group.map((m) => m.partition)).size, `trace ${key} on one partition`).toBe(1);
    group.sort((a, b) => (a.offset < b.offset ? -1 : 1));
  }
  return groups;
}

function spansByTrace(spans: Span[]): Map<string, Span[]> {
  const groups = new Map<string, Span[]>();
  for (const s of spans) groups.set(s.traceId, [...(groups.get(s.traceId) ?? []), s]);
  return groups;
}

describe('kafka exporter, encoding json', () => {
  it('writes each span once as its JSON record, keyed by trace id, in order within the trace, with headers', async () => {
    const topic = uniqueTopic('json');
    await createTopic(bootstrap, topic, 3);
    const { logger, lines } = recordingLogger();
    const exporter = new KafkaExporter(
      kafkaConfig({ brokers: [bootstrap], topic, headers: { 'x-team': 'llm', source: 'kafka-test' } }),
      context(logger),
    );
    await exporter.start();
    const spans = makeSpans(20, 6);
    await exporter.export(spans.slice(0, 70));
    await exporter.export(spans.slice(70));
    await exporter.shutdown();

    const messages = await readTopic(bootstrap, topic, spans.length);
    expect(messages).toHaveLength(spans.length);
    const expected = new Map(spans.map((s) => [s.spanId, s]));
    const seen = new Set<string>();
    for (const m of messages) {
      const record = JSON.parse(m.value.toString('utf8')) as Record<string, unknown>;
      const span = expected.get(record.span_id as string);
      expect(span, `span ${String(record.span_id)} was sent`).toBeDefined();
      expect(seen.has(span!.spanId), 'no duplicate').toBe(false);
      seen.add(span!.spanId);
      // Byte for byte the span record of span-record.md, and the key is its trace id.
      expect(m.value.toString('utf8')).toBe(encodeSpanJson(span!));
      expect(m.key).toBe(span!.traceId);
      expect(record.attributes).toMatchObject({ 'ag.data.inputs.q': span!.attributes.get('ag.data.inputs.q'), seq: span!.attributes.get('seq') });
      expect(Object.fromEntries(m.headers)).toEqual({
        'content-type': 'application/json',
        'tracehop-encoding': 'span-record-v1',
        'x-team': 'llm',
        source: 'kafka-test',
      });
    }
    // Order within a trace: the partition holds its spans in the order they were exported.
    const sent = spansByTrace(spans);
    const got = byKey(messages);
    expect(got.size).toBe(20);
    for (const [traceId, group] of got) {
      const ids = group.map((m) => (JSON.parse(m.value.toString('utf8')) as { span_id: string }).span_id);
      expect(ids).toEqual(sent.get(traceId)!.map((s) => s.spanId));
    }
    expect(lines.some((l) => l.msg === 'kafka connected' && l.topic === topic)).toBe(true);
  });

  it('spans accepted with a project key carry it: the record member and the tracehop-project header', async () => {
    const topic = uniqueTopic('json_project');
    await createTopic(bootstrap, topic, 1);
    const exporter = new KafkaExporter(kafkaConfig({ brokers: [bootstrap], topic }), context(recordingLogger().logger));
    await exporter.start();
    const spans = makeSpans(2, 2);
    spans[0].project = 'proj-a';
    spans[1].project = 'proj-a';
    await exporter.export(spans);
    await exporter.shutdown();
    const messages = await readTopic(bootstrap, topic, spans.length);
    const projects = messages.map((m) => [
      (JSON.parse(m.value.toString('utf8')) as { project?: string }).project, Object.fromEntries(m.headers)['tracehop-project'],
    ]);
    expect(projects.sort()).toEqual([[undefined, undefined], [undefined, undefined], ['proj-a', 'proj-a'], ['proj-a', 'proj-a']]);
  });

  it('delivers the rest of a batch and hands back only a span too large for one message', async () => {
    const topic = uniqueTopic('json_large');
    await createTopic(bootstrap, topic, 1);
    const { logger, lines } = recordingLogger();
    const exporter = new KafkaExporter(kafkaConfig({ brokers: [bootstrap], topic, max_message_bytes: 4096 }), context(logger));
    await exporter.start();
    const small = makeSpans(3, 2);
    const [huge] = makeSpans(1, 1, { payloadBytes: 8000 });
    const batch = [small[0], small[1], huge, ...small.slice(2)];
    const error = await exporter.export(batch).then(() => undefined, (e: unknown) => e);
    await exporter.shutdown();

    expect(error).toBeInstanceOf(PermanentError);
    expect((error as PermanentError).spans).toEqual([huge]);
    expect((error as PermanentError).message).toMatch(/larger than max_message_bytes/);
    expect(lines.some((l) => l.level === 'error' && l.span_id === huge.spanId)).toBe(true);
    const messages = await readTopic(bootstrap, topic, small.length);
    expect(messages.map((m) => (JSON.parse(m.value.toString('utf8')) as { span_id: string }).span_id)).toEqual(
      small.map((s) => s.spanId),
    );
  });
});
