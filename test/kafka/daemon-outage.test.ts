// The built daemon (storage: disk) keeps acknowledging while the broker is down for 60 s under a steady
// load; its stream directory grows by at least what it acknowledged meanwhile, the file exporter beside
// Kafka keeps delivering (its own cursor), and once the same broker is back the backlog drains: every
// acknowledged span reaches the topic and the consumed segments are deleted.
//
// Stops the suite's broker: the kafka project runs its files one at a time, and the broker is started
// again in `finally` whatever happens here.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { startDaemon, tempDir } from '../helpers/daemon.ts';
import { startBroker, stopBroker } from './broker.ts';
import { dirBytes, fileSpanCounts, LoadClient, tally, TopicWatcher } from './daemon-load.ts';
import { createTopic, uniqueTopic } from './helpers.ts';

const bootstrap = inject('kafkaBootstrap');
const brokerDir = inject('kafkaWorkDir');

const OUTAGE_MS = 60_000;
const PAYLOAD_BYTES = 200;
// 64 MiB bound: segments of 4 MiB (max_bytes / 16), so a backlog of a few of them shows its deletion.
const MAX_BYTES = 64 * 1024 * 1024;
const SEGMENT_BYTES = MAX_BYTES / 16;

function config(topic: string): string {
  return `receivers:
  http:
    endpoint: 127.0.0.1:0
processors:
  batch:
    timeout: 100ms
exporters:
  file:
    path: ./out/spans.jsonl
    flush_interval: 0
  kafka:
    brokers: [${bootstrap}]
    topic: ${topic}
    encoding: json
    timeout: 2s
    # A 60 s outage would otherwise back off to the 30 s default ceiling, and the drain would start up
    # to 30 s after the broker is back: the test measures the drain, not the backoff.
    retry: { initial_interval: 200ms, max_interval: 2s }
storage:
  type: disk
  directory: ./data
  fsync: always
  max_bytes: ${MAX_BYTES}
service:
  pipelines:
    traces:
      receivers: [http]
      processors: [batch]
      exporters: [file, kafka]
`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('daemon with kafka down for 60 s under load (storage: disk)', () => {
  it('keeps acknowledging, grows the stream, loses nothing and drains after recovery', { timeout: 200_000 }, async () => {
    const topic = uniqueTopic('daemon_outage');
    await createTopic(bootstrap, topic, 3);
    const dir = await tempDir('tracehop-kafka-outage-');
    const daemon = await startDaemon(config(topic), { dir });
    const streamDir = path.join(dir, 'data', 'traces');
    const outFile = path.join(dir, 'out', 'spans.jsonl');
    const fileSize = () => fs.statSync(outFile, { throwIfNoEntry: false })?.size ?? 0;
    // About 500 spans/s: a request of 50 spans every 100 ms.
    const client = new LoadClient({ url: () => daemon.url('http'), senders: 1, spansPerRequest: 50, pauseMs: 100, payloadBytes: PAYLOAD_BYTES });
    client.start();

    let brokerDown = false;
    let watcher: TopicWatcher | undefined;
    try {
      await sleep(3000);
      expect(client.acked.size, 'acknowledging before the outage').toBeGreaterThan(0);

      brokerDown = true;
      await stopBroker(brokerDir);
      // Counted from when the broker process is gone.
      const stoppedAt = Date.now();
      const ackedAtStop = client.acked.size;
      const streamAtStop = dirBytes(streamDir);
      const fileAtStop = fileSize();
      let peak = streamAtStop;
      while (Date.now() - stoppedAt < OUTAGE_MS) {
        await sleep(1000);
        peak = Math.max(peak, dirBytes(streamDir));
      }
      const ackedDuringOutage = client.acked.size - ackedAtStop;
      const fileGrewBy = fileSize() - fileAtStop;
      const streamAtRestart = dirBytes(streamDir);
      peak = Math.max(peak, streamAtRestart);

      await startBroker({ workDir: brokerDir });
      brokerDown = false;
      const restartedAt = Date.now();
      const backlog = new Set(client.acked);
      watcher = await new TopicWatcher(bootstrap).start(topic);
      // Still under load while the backlog drains.
      await watcher.waitForAll(backlog, 90_000, 0);
      const backlogSeen = [...backlog].map((k) => watcher!.firstSeenAt.get(k) ?? Infinity);
      const drainMs = Math.max(...backlogSeen) - restartedAt;
      await client.stop();
      await watcher.waitForAll(client.acked, 30_000, 2000);

      // Consumed segments are deleted once both cursors passed them: the directory falls back to the
      // open segment (or a fresh one).
      const deadline = Date.now() + 20_000;
      let streamAfter = dirBytes(streamDir);
      while (streamAfter > SEGMENT_BYTES + 64 * 1024 && Date.now() < deadline) {
        await sleep(200);
        streamAfter = dirBytes(streamDir);
      }

      const kafka = tally(client.acked, watcher.counts);
      console.log(
        `kafka 60 s outage: ${client.acked.size} spans acknowledged (${ackedDuringOutage} while the broker was down, ` +
          `answers ${JSON.stringify(Object.fromEntries(client.statuses))}); stream dir ${streamAtStop} B at the stop, ` +
          `${peak} B at its peak, ${streamAfter} B after the drain; file output grew ${fileGrewBy} B during the outage; ` +
          `backlog of ${backlog.size} spans in the topic ${drainMs} ms after the broker was back (incl. the consumer's start); ` +
          `kafka: ${watcher.messages} messages, lost ${kafka.lost}, duplicates ${kafka.duplicates}`,
      );

      expect(ackedDuringOutage, 'acknowledging while the broker is down').toBeGreaterThan(10_000);
      expect(client.statuses.get(202)).toBe([...client.statuses.values()].reduce((a, b) => a + b, 0));
      // Each span acknowledged meanwhile holds its payload in the stream, besides everything else.
      expect(peak - streamAtStop).toBeGreaterThan(ackedDuringOutage * PAYLOAD_BYTES);
      expect(fileGrewBy, 'the file exporter is not held up by Kafka').toBeGreaterThan(ackedDuringOutage * PAYLOAD_BYTES);
      expect(kafka.lost).toBe(0);
      expect(streamAfter, 'consumed segments deleted after the drain').toBeLessThanOrEqual(SEGMENT_BYTES + 64 * 1024);
      expect(streamAfter).toBeLessThan(peak / 2);
    } finally {
      await client.stop();
      await watcher?.close();
      if (brokerDown) await startBroker({ workDir: brokerDir });
      const code = await daemon.stop('SIGTERM');
      expect(code, 'clean drain on SIGTERM').toBe(0);
    }
    const file = tally(client.acked, fileSpanCounts(path.join(dir, 'out')));
    expect(file.lost).toBe(0);
  });
});
