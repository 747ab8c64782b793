// The broker goes away for 20 s while a client keeps sending; every span acknowledged (appended to the
// ingest stream) before, during and after the outage must reach the topic once the broker is back.
// Duplicates are allowed (at least once) and counted; a missing span fails the test.
//
// The pieces are the daemon's own: memory ingest stream, batch processor, export runner with its retry
// and dead-letter rules, and the kafka exporter. The broker is the suite's, stopped and restarted in
// place (same ports, same data), so this file must not share the broker with a file running alongside
// (the kafka project runs its files one at a time).
import { describe, expect, inject, it } from 'vitest';
import { KafkaExporter } from '../../exporters/kafka/kafka-exporter.ts';
import { SizeOrTimeBatcher } from '../../processors/batch/batcher.ts';
import { ExportRunner, SerialExporter, type DeadLetterSink } from '../../pipeline/runner.ts';
import type { Span } from '../../model/span.ts';
import { MemoryStream } from '../../pipeline/stream/memory.ts';
import { startBroker, stopBroker } from './broker.ts';
import { context, createTopic, kafkaConfig, makeSpans, readTopic, recordingLogger, uniqueTopic } from './helpers.ts';

const bootstrap = inject('kafkaBootstrap');
const brokerDir = inject('kafkaWorkDir');

const OUTAGE_MS = 20_000;
const SEND_EVERY_MS = 100;

describe('kafka exporter through a broker outage', () => {
  it('delivers every span acknowledged before, during and after a 20 s outage', { timeout: 240_000 }, async () => {
    const topic = uniqueTopic('outage');
    await createTopic(bootstrap, topic, 3);
    const { logger, lines } = recordingLogger();
    const exporter = new KafkaExporter(
      kafkaConfig({ brokers: [bootstrap], topic, timeout: '2s', send_retries: 2, send_retry_backoff: '100ms' }),
      context(logger),
    );
    await exporter.start();

    const stream = new MemoryStream({ maxBytes: 256 * 1024 * 1024, retryAfterMs: 1000 });
    await stream.open();
    const deadLettered: Span[] = [];
    const deadLetters: DeadLetterSink = { write: async (spans) => void deadLettered.push(...spans) };
    const runner = new ExportRunner({
      exporterId: 'kafka',
      pipelineId: 'traces',
      stream,
      batcher: new SizeOrTimeBatcher({ send_batch_size: 200, timeout: 100, send_batch_max_size: 0, send_batch_size_mib: 0 }),
      exporter: new SerialExporter(exporter),
      retry: { initial_interval: 250, max_interval: 1000, multiplier: 1.5 },
      maxAttempts: 10,
      deadLetters,
      logger,
    });
    runner.start();

    // The client: a request of 10 spans every 100 ms, acknowledged once appended.
    const acknowledged: Span[] = [];
    let duringOutage = 0;
    let outage = false;
    let sending = true;
    const client = (async () => {
      while (sending) {
        const spans = makeSpans(2, 5);
        await stream.append(spans);
        for (const s of spans) acknowledged.push(s);
        if (outage) duringOutage += spans.length;
        await new Promise((r) => setTimeout(r, SEND_EVERY_MS));
      }
    })();

    await new Promise((r) => setTimeout(r, 2000));
    expect(runner.delivered, 'delivering before the outage').toBeGreaterThan(0);
    outage = true;
    await stopBroker(brokerDir);
    // Counted once the broker process is gone: requests it answered while shutting down are not the outage.
    const beforeOutage = runner.delivered;
    const stoppedAt = Date.now();
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    const deliveredDuringOutage = runner.delivered - beforeOutage;
    await startBroker({ workDir: brokerDir });
    outage = false;
    const restartedAfterMs = Date.now() - stoppedAt;
    await new Promise((r) => setTimeout(r, 2000));
    sending = false;
    await client;
    stream.seal();
    await runner.drained();

    const messages = await readTopic(bootstrap, topic, acknowledged.length, { timeoutMs: 60_000, settleMs: 2000 });
    const counts = new Map<string, number>();
    for (const m of messages) {
      const id = (JSON.parse(m.value.toString('utf8')) as { span_id: string }).span_id;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    const missing = acknowledged.filter((s) => !counts.has(s.spanId));
    const duplicates = messages.length - counts.size;
    process.stderr.write(
      `[kafka outage] acknowledged ${acknowledged.length} spans (${duringOutage} during the outage), ` +
        `broker back after ${restartedAfterMs} ms, delivered during the outage ${deliveredDuringOutage}, ` +
        `read back ${messages.length} messages, ${duplicates} duplicates, ${missing.length} missing\n`,
    );

    expect(duringOutage).toBeGreaterThan(100);
    expect(deliveredDuringOutage, 'nothing can be delivered while the broker is down').toBe(0);
    expect(missing.map((s) => s.spanId)).toEqual([]);
    expect(counts.size).toBe(acknowledged.length);
    expect(deadLettered).toEqual([]);
    expect(runner.delivered).toBe(acknowledged.length);
    // The exporter said when it lost the broker and when it got it back.
    expect(lines.some((l) => l.level === 'warn' && String(l.msg).startsWith('kafka unreachable'))).toBe(true);
    expect(lines.some((l) => l.msg === 'kafka connected' && typeof l.unreachable_for_ms === 'number')).toBe(true);
    expect(lines.some((l) => l.msg === 'export failed, retrying' && typeof l.next_attempt_at === 'string')).toBe(true);
    await exporter.shutdown();
    await stream.close();
  });
});
