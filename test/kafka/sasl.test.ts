// The exporter's SASL options against the broker's SASL_PLAINTEXT listener: every mechanism delivers
// with the right password, and a wrong password is a start-up error, not a silent retry loop.
import { describe, expect, inject, it } from 'vitest';
import { SASL_MECHANISMS } from '../../exporters/kafka/config.ts';
import { KafkaExporter } from '../../exporters/kafka/kafka-exporter.ts';
import { StartupError } from '../../pipeline/errors.ts';
import { SASL_PASSWORD, SASL_USER } from './broker.ts';
import { context, createTopic, kafkaConfig, makeSpans, readTopic, recordingLogger, uniqueTopic } from './helpers.ts';

const bootstrap = inject('kafkaBootstrap');
const saslBootstrap = inject('kafkaSaslBootstrap');

describe('kafka exporter with SASL', () => {
  it.each(SASL_MECHANISMS)('%s: delivers through the SASL listener', async (mechanism) => {
    const topic = uniqueTopic(`sasl_${mechanism.replaceAll('-', '_')}`);
    await createTopic(bootstrap, topic, 1);
    const exporter = new KafkaExporter(
      kafkaConfig({ brokers: [saslBootstrap], topic, sasl: { mechanism, username: SASL_USER, password: SASL_PASSWORD } }),
      context(recordingLogger().logger),
    );
    await exporter.start();
    const spans = makeSpans(2, 3);
    await exporter.export(spans);
    await exporter.shutdown();
    const messages = await readTopic(bootstrap, topic, spans.length);
    expect(messages.map((m) => m.key)).toEqual(spans.map((s) => s.traceId));
  });

  it('a wrong password is a start-up error', async () => {
    const exporter = new KafkaExporter(
      kafkaConfig({
        brokers: [saslBootstrap],
        topic: 'anything',
        sasl: { mechanism: 'scram-sha-256', username: SASL_USER, password: 'wrong' },
        timeout: '5s',
      }),
      context(recordingLogger().logger),
    );
    const error = await exporter.start().then(() => undefined, (e: unknown) => e);
    await exporter.shutdown();
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toMatch(/refused our credentials or certificate.*SASL authentication failed/);
  });
});
