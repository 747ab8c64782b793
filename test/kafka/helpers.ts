// Shared pieces of the Kafka tests: spans to send, the exporter's config with its defaults filled in
// the way the config loader does, topics, and an independent consumer reading a topic back.
import { randomBytes } from 'node:crypto';
import { Consumer } from '@platformatic/kafka';
import { createTopic } from '../../bench/kafka-topic.ts';
import { expect } from 'vitest';
import { validator } from '../helpers/schema-validator.ts';
import type { ComponentContext } from '../../pipeline/component.ts';
import { createLogger, type Logger } from '../../pipeline/log.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { Span } from '../../model/span.ts';
import { schema, type KafkaConfig } from '../../exporters/kafka/config.ts';
import { KafkaExporter } from '../../exporters/kafka/kafka-exporter.ts';

export function uniqueTopic(prefix: string): string {
  return `${prefix}_${randomBytes(4).toString('hex')}`;
}

export { createTopic };

/** The config as the loader hands it over: schema defaults filled in, durations in ms. */
export function kafkaConfig(raw: Record<string, unknown>): KafkaConfig {
  const config = structuredClone(raw);
  const validate = validator(schema);
  if (!validate(config)) throw new Error(`bad kafka config: ${JSON.stringify(validate.errors)}`);
  return config as unknown as KafkaConfig;
}

/** A logger whose lines the test can read. */
export function recordingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'debug', write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

export function context(logger: Logger, id = 'kafka'): ComponentContext {
  return { id, logger };
}

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/**
 * `traces` traces of `perTrace` spans each, the spans of a trace interleaved with the others' (as a
 * batch of several requests would hold them), each span with attributes of every kind.
 */
export function makeSpans(traces: number, perTrace: number, options: { payloadBytes?: number } = {}): Span[] {
  const traceIds = Array.from({ length: traces }, () => hex(16));
  const spans: Span[] = [];
  const base = 1_776_363_498_123_456_789n;
  for (let j = 0; j < perTrace; j++) {
    for (let t = 0; t < traces; t++) {
      const attributes = new AttributeList([
        ['ag.type.span', 'chat'],
        ['ag.data.inputs.q', `question ${t}/${j}`],
        ['ag.metrics.duration.cumulative', 1376.543211],
        ['gen_ai.request.model', 'gpt-4o'],
        ['seq', j],
        ['big', 9_007_199_254_740_993n],
        ['ok', true],
        ['tags', ['a', 'b']],
      ]);
      if (options.payloadBytes) attributes.set('ag.data.outputs.text', 'x'.repeat(options.payloadBytes));
      spans.push({
        traceId: traceIds[t],
        spanId: hex(8),
        ...(j > 0 ? { parentId: spans[spans.length - traces].spanId } : {}),
        name: `step-${j}`,
        kind: 3, // OTLP's CLIENT
        startNs: base + BigInt(j) * 1_000_000n,
        endNs: base + BigInt(j) * 1_000_000n + 500_000n,
        status: { code: 1 }, // OTLP's OK
        attributes,
        resource: new AttributeList([['service.name', 'kafka-test']]),
        scope: { name: 'tracehop-test', version: '1.0.0' },
      });
    }
  }
  return spans;
}

export interface ReadMessage {
  key: string;
  value: Buffer;
  headers: Map<string, string>;
  partition: number;
  offset: bigint;
}

/**
 * Reads `topic` from the beginning with a consumer of its own group until `count` messages arrived
 * (then waits `settleMs` more, so extra messages would be seen too) or `timeoutMs` passed.
 */
export async function readTopic(
  bootstrap: string,
  topic: string,
  count: number,
  options: { timeoutMs?: number; settleMs?: number } = {},
): Promise<ReadMessage[]> {
  const consumer = new Consumer({
    groupId: `tracehop-test-${randomBytes(4).toString('hex')}`,
    clientId: 'tracehop-test-consumer',
    bootstrapBrokers: [bootstrap],
    maxWaitTime: 200,
  });
  const out: ReadMessage[] = [];
  const stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: false });
  try {
    await new Promise<void>((resolve, reject) => {
      let settle: NodeJS.Timeout | undefined;
      const timer = setTimeout(resolve, options.timeoutMs ?? 30_000);
      stream.on('data', (m) => {
        const headers = new Map<string, string>();
        for (const [k, v] of m.headers) headers.set(k.toString('utf8'), v.toString('utf8'));
        out.push({ key: m.key.toString('utf8'), value: m.value, headers, partition: m.partition, offset: m.offset });
        if (out.length >= count && !settle) {
          clearTimeout(timer);
          settle = setTimeout(resolve, options.settleMs ?? 500);
        }
      });
      stream.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  } finally {
    await stream.close();
    await consumer.close(true);
  }
  return out;
}

/**
 * Delivers a few traces through an exporter on `broker` configured with `options` (sasl, tls, ...), then
 * reads the topic back over the plaintext listener `bootstrap`: it holds exactly those spans.
 */
export async function expectDelivery(bootstrap: string, broker: string, options: Record<string, unknown>, topicPrefix: string): Promise<void> {
  const topic = uniqueTopic(topicPrefix);
  await createTopic(bootstrap, topic, 1);
  const exporter = new KafkaExporter(kafkaConfig({ brokers: [broker], topic, ...options }), context(recordingLogger().logger));
  await exporter.start();
  const spans = makeSpans(2, 3);
  await exporter.export(spans);
  await exporter.shutdown();
  const messages = await readTopic(bootstrap, topic, spans.length);
  expect(messages.map((m) => m.key)).toEqual(spans.map((s) => s.traceId));
}

/** What an exporter on `broker` configured with `options` throws from start() (undefined if it starts). */
export async function startupError(broker: string, options: Record<string, unknown>): Promise<unknown> {
  const exporter = new KafkaExporter(kafkaConfig({ brokers: [broker], topic: 'anything', timeout: '5s', ...options }), context(recordingLogger().logger));
  const error = await exporter.start().then(() => undefined, (e: unknown) => e);
  await exporter.shutdown();
  return error;
}
