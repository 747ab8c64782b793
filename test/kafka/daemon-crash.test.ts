// The whole daemon under kill -9 with two exporters, a file and Kafka (json): a client sends continuously
// to the tracing API and records every link of every 202; the daemon (storage: disk, fsync: always) is
// SIGKILLed at random moments and restarted on the same directory. At the end every acknowledged span is
// in the file output AND in the topic (read by an independent consumer). Lost must be 0; duplicates are
// allowed (at least once: a batch delivered but not yet committed when the kill came is sent again) and
// reported.
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { startDaemon, tempDir, type Daemon } from '../helpers/daemon.ts';
import { fileSpanCounts, LoadClient, tally, TopicWatcher } from './daemon-load.ts';
import { createTopic, uniqueTopic } from './helpers.ts';

const bootstrap = inject('kafkaBootstrap');

const KILLS = 6;

function config(topic: string): string {
  return `receivers:
  http:
    endpoint: 127.0.0.1:0
processors:
  batch:
    timeout: 50ms
exporters:
  file:
    path: ./out/spans.jsonl
    flush_interval: 0
  kafka:
    brokers: [${bootstrap}]
    topic: ${topic}
    encoding: json
    retry: { initial_interval: 100ms, max_interval: 1s }
storage:
  type: disk
  directory: ./data
  fsync: always
service:
  pipelines:
    traces:
      receivers: [http]
      processors: [batch]
      exporters: [file, kafka]
`;
}

describe('daemon under kill -9 with file and kafka exporters (storage: disk, fsync: always)', () => {
  it(`every span acknowledged with 202 reaches the file AND the topic across ${KILLS} SIGKILLs`, { timeout: 150_000 }, async () => {
    const topic = uniqueTopic('crash');
    await createTopic(bootstrap, topic, 3);
    const dir = await tempDir('tracehop-kafka-crash-');
    let daemon: Daemon = await startDaemon(config(topic), { dir });
    const client = new LoadClient({ url: () => daemon.url('http'), senders: 4, spansPerRequest: 100 });
    const started = Date.now();
    client.start();

    const killedAt: number[] = [];
    let down = 0;
    try {
      for (let k = 0; k < KILLS; k++) {
        // Random moments: the first kill may land before anything reached Kafka, later ones mid-delivery.
        await new Promise((resolve) => setTimeout(resolve, 500 + Math.floor(Math.random() * 1500)));
        killedAt.push(client.acked.size);
        daemon.child.kill('SIGKILL');
        const code = await daemon.exited;
        expect(code, 'killed, not exited on its own').toBeNull();
        const downFrom = Date.now();
        daemon = await startDaemon(config(topic), { dir });
        down += Date.now() - downFrom;
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    } finally {
      await client.stop();
    }
    const sendingMs = Date.now() - started;

    // Every acknowledged span, from the file and from the topic. The daemon drains both exporters first.
    const watcher = await new TopicWatcher(bootstrap).start(topic);
    let kafka;
    try {
      await watcher.waitForAll(client.acked, 60_000, 2000);
      kafka = tally(client.acked, watcher.counts);
    } finally {
      await watcher.close();
    }
    expect(await daemon.stop('SIGTERM'), 'clean drain on SIGTERM').toBe(0);
    const file = tally(client.acked, fileSpanCounts(path.join(dir, 'out')));

    const rate = Math.round((client.acked.size * 1000) / sendingMs);
    console.log(
      `kafka daemon crash test: ${KILLS} SIGKILLs (acknowledged before each: ${killedAt.join(', ')}), ` +
        `${client.acked.size} acknowledged spans in ${sendingMs} ms (~${rate} spans/s, daemon down ${down} ms in all), ` +
        `answers ${JSON.stringify(Object.fromEntries(client.statuses))}, ${client.failedRequests} requests without answer; ` +
        `file: lost ${file.lost}, duplicates ${file.duplicates}, delivered unacknowledged ${file.unacknowledged}; ` +
        `kafka: ${watcher.messages} messages, lost ${kafka.lost}, duplicates ${kafka.duplicates}, delivered unacknowledged ${kafka.unacknowledged}`,
    );
    // Kills at different amounts of work, each after the client had new acknowledgements.
    for (let k = 1; k < killedAt.length; k++) expect(killedAt[k]).toBeGreaterThan(killedAt[k - 1]);
    expect(client.acked.size).toBeGreaterThan(10_000);
    expect(file.lost).toBe(0);
    expect(kafka.lost).toBe(0);
  });
});
