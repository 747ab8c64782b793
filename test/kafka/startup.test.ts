// The kafka exporter's start-up: the topic check, create_topic, and what happens with no broker at all.
import { createServer } from 'node:net';
import { Admin } from '@platformatic/kafka';
import { describe, expect, inject, it } from 'vitest';
import { KafkaExporter } from '../../exporters/kafka/kafka-exporter.ts';
import { RetryableError, StartupError } from '../../pipeline/errors.ts';
import { context, kafkaConfig, makeSpans, readTopic, recordingLogger, uniqueTopic } from './helpers.ts';

const bootstrap = inject('kafkaBootstrap');

/** A loopback port nothing listens on. */
async function deadPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 1));
    });
  });
}

describe('kafka exporter start-up', () => {
  it('refuses to start when the topic is missing and create_topic is not set', async () => {
    const topic = uniqueTopic('missing');
    const exporter = new KafkaExporter(kafkaConfig({ brokers: [bootstrap], topic }), context(recordingLogger().logger));
    const error = await exporter.start().then(() => undefined, (e: unknown) => e);
    await exporter.shutdown();
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toContain(`topic "${topic}" does not exist`);
    expect((error as Error).message).toContain('create_topic');
  });

  it('creates the topic with the partitions asked for, then delivers to it', async () => {
    const topic = uniqueTopic('created');
    const { logger, lines } = recordingLogger();
    const exporter = new KafkaExporter(
      kafkaConfig({ brokers: bootstrap, topic, create_topic: { partitions: 4, replication_factor: 1 } }),
      context(logger),
    );
    await exporter.start();
    const spans = makeSpans(2, 2);
    await exporter.export(spans);
    await exporter.shutdown();

    const admin = new Admin({ clientId: 'tracehop-test-admin', bootstrapBrokers: [bootstrap] });
    const info = (await admin.metadata({ topics: [topic] })).topics.get(topic);
    await admin.close();
    expect(info?.partitionsCount).toBe(4);
    expect(lines.some((l) => l.msg === 'kafka topic created' && l.partitions === 4)).toBe(true);
    expect(await readTopic(bootstrap, topic, spans.length)).toHaveLength(spans.length);
  });

  it('starts with no broker reachable, then answers exports with RetryableError and says so once in the log', async () => {
    const port = await deadPort();
    const { logger, lines } = recordingLogger();
    const exporter = new KafkaExporter(
      kafkaConfig({ brokers: [`127.0.0.1:${port}`], topic: 'anything', timeout: '1s', send_retries: 0 }),
      context(logger),
    );
    await exporter.start();
    const spans = makeSpans(1, 1);
    for (let i = 0; i < 2; i++) {
      const error = await exporter.export(spans).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(RetryableError);
    }
    await exporter.shutdown();
    expect(lines.filter((l) => l.level === 'warn' && String(l.msg).startsWith('kafka unreachable'))).toHaveLength(1);
  });

  it('names an unreadable TLS file as a start-up error', async () => {
    const exporter = new KafkaExporter(
      kafkaConfig({ brokers: [bootstrap], tls: { ca_file: '/nonexistent/tracehop-ca.pem' } }),
      context(recordingLogger().logger),
    );
    await expect(exporter.start()).rejects.toThrow(/tls\.ca_file: cannot read \/nonexistent\/tracehop-ca\.pem/);
    await exporter.shutdown();
  });
});
