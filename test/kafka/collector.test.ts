// tracehop's kafka exporter (otlp_proto and otlp_json) read by a real OpenTelemetry Collector's
// `kafkareceiver`, whose file exporter writes what it got as OTLP/JSON lines. The interop fixture (two
// resources, scopes with attributes, events, links, every value type) must come out as it went in.
// The Collector is built by test/interop/collector.sh where `go` exists (docs/decisions/0200).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, inject, it } from 'vitest';
import { KafkaExporter } from '../../exporters/kafka/kafka-exporter.ts';
import { decodeExportRequestJson } from '../../codec/otlp/index.ts';
import { describeWithCollector, QUIET_TELEMETRY, startCollector, useCollectorBinary } from '../interop/collector.ts';
import { waitForLines } from '../interop/files.ts';
import { FIXTURE_SPAN_COUNT, fixtureRequest, fromOtlpJson } from '../interop/otlp-fixture.ts';
import type { Peer } from '../interop/process.ts';
import { context, createTopic, kafkaConfig, recordingLogger, uniqueTopic } from './helpers.ts';

const bootstrap = inject('kafkaBootstrap');

type Json = Record<string, unknown>;

describeWithCollector('kafka exporter -> OpenTelemetry Collector kafkareceiver', () => {
  const binary = useCollectorBinary();
  let dir = '';
  let collector: Peer | undefined;

  afterEach(async () => {
    await collector?.stop();
    collector = undefined;
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
    dir = '';
  });

  it.each(['otlp_proto', 'otlp_json'] as const)('%s messages are read by the Collector exactly as sent', async (encoding) => {
    dir = mkdtempSync(join(tmpdir(), 'tracehop-kafka-otelcol-'));
    const topic = uniqueTopic(`otelcol_${encoding}`);
    await createTopic(bootstrap, topic, 2);
    const out = join(dir, 'collector-out.jsonl');
    collector = await startCollector(
      binary(),
      {
        receivers: {
          kafka: {
            brokers: [bootstrap],
            traces: { topics: [topic], encoding },
            group_id: `tracehop-${topic}`,
            initial_offset: 'earliest',
          },
        },
        exporters: { file: { path: out, format: 'json', flush_interval: '100ms' } },
        service: { telemetry: QUIET_TELEMETRY, pipelines: { traces: { receivers: ['kafka'], exporters: ['file'] } } },
      },
      dir,
    );

    const sent = fixtureRequest();
    const spans = decodeExportRequestJson(Buffer.from(JSON.stringify(sent))).spans;
    const exporter = new KafkaExporter(kafkaConfig({ brokers: [bootstrap], topic, encoding, compression: 'zstd' }), context(recordingLogger().logger));
    await exporter.start();
    await exporter.export(spans);
    await exporter.shutdown();

    const lines = await waitForLines(out, (l) => fromOtlpJson(l.map((x) => JSON.parse(x) as Json)).length, FIXTURE_SPAN_COUNT, 60_000, () =>
      `collector output:\n${collector!.output().slice(-3000)}`,
    );
    expect(fromOtlpJson(lines.map((l) => JSON.parse(l) as Json))).toEqual(fromOtlpJson([sent]));
  });
});
