// Produce throughput of the kafka exporter to a local broker, per encoding (and codec): spans/s through
// export() calls of the batch processor's default size, acknowledged by the broker (acks all,
// idempotent). Not a test: run it by hand, on a quiet machine.
//
//   node_modules/.bin/node test/kafka/throughput.ts [spans=200000] [bootstrap]
//
// Without a bootstrap address it starts (and stops) a broker of its own with broker.ts.
import { KafkaExporter } from '../../exporters/kafka/kafka-exporter.ts';
import { startBroker, stopBroker } from './broker.ts';
import { context, createTopic, kafkaConfig, makeSpans, recordingLogger, uniqueTopic } from './helpers.ts';

const BATCH = 8192; // a large export call (the Collector's default batch trigger)

async function measure(bootstrap: string, encoding: string, compression: string, total: number): Promise<number> {
  const topic = uniqueTopic(`bench_${encoding}_${compression}`);
  await createTopic(bootstrap, topic, 3);
  const exporter = new KafkaExporter(kafkaConfig({ brokers: [bootstrap], topic, encoding, compression }), context(recordingLogger().logger));
  await exporter.start();
  // 8 spans per trace, as an LLM agent call tends to make; spans made before the clock starts.
  const batches = [];
  for (let sent = 0; sent < total; sent += BATCH) batches.push(makeSpans(BATCH / 8, 8));
  await exporter.export(makeSpans(64, 8)); // warm-up: connection, producer id, metadata
  const started = process.hrtime.bigint();
  for (const batch of batches) await exporter.export(batch);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await exporter.shutdown();
  return (batches.length * BATCH) / seconds;
}

const total = Number(process.argv[2] ?? 200_000);
let bootstrap = process.argv[3];
const own = bootstrap ? undefined : await startBroker({ log: (l) => process.stderr.write(l + '\n') });
bootstrap ??= own!.bootstrap;
try {
  for (const [encoding, compression] of [['json', 'none'], ['otlp_proto', 'none'], ['json', 'lz4'], ['otlp_proto', 'lz4'], ['json', 'zstd']]) {
    const rate = await measure(bootstrap, encoding, compression, total);
    process.stdout.write(`${encoding.padEnd(10)} ${compression.padEnd(5)} ${Math.round(rate).toLocaleString('en-US')} spans/s\n`);
  }
} finally {
  if (own) await stopBroker(own.workDir, { remove: true });
}
