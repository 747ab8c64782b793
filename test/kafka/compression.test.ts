// Every codec the client has on Node 24, round trip through the real broker: the broker accepts the
// batches (it validates them, so it decompresses them), the consumer reads back exactly what was sent,
// and the broker's own log segment shows the data was stored compressed.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { COMPRESSIONS } from '../../exporters/kafka/config.ts';
import { KafkaExporter } from '../../exporters/kafka/kafka-exporter.ts';
import { encodeSpanJson } from '../../codec/record/index.ts';
import { context, createTopic, kafkaConfig, makeSpans, readTopic, recordingLogger, uniqueTopic } from './helpers.ts';

const bootstrap = inject('kafkaBootstrap');
const brokerDir = inject('kafkaWorkDir');

/** Bytes of the topic's (single) partition log on the broker's disk. */
function segmentBytes(topic: string): number {
  return statSync(join(brokerDir, 'data', `${topic}-0`, '00000000000000000000.log')).size;
}

describe('kafka exporter compression', () => {
  // Repetitive payloads: every codec shrinks them a lot, so "stored compressed" is a clear signal.
  const spans = makeSpans(10, 10, { payloadBytes: 2000 });
  const sizes = new Map<string, number>();

  it.each(COMPRESSIONS)('%s: the consumer reads back exactly the spans sent', async (compression) => {
    const topic = uniqueTopic(`codec_${compression}`);
    await createTopic(bootstrap, topic, 1);
    const { logger } = recordingLogger();
    const exporter = new KafkaExporter(kafkaConfig({ brokers: [bootstrap], topic, compression }), context(logger));
    await exporter.start();
    await exporter.export(spans);
    await exporter.shutdown();

    const messages = await readTopic(bootstrap, topic, spans.length);
    expect(messages.map((m) => m.value.toString('utf8'))).toEqual(spans.map((s) => encodeSpanJson(s)));
    sizes.set(compression, segmentBytes(topic));
    if (compression !== 'none') {
      const plain = sizes.get('none');
      expect(plain, 'the uncompressed run comes first').toBeDefined();
      expect(sizes.get(compression)!).toBeLessThan(plain! / 3);
    }
  });
});
