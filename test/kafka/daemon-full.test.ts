// The built daemon's disk stream fills up while the broker is down: the tracing API answers 503 with
// Retry-After and appends nothing (the stream directory stops growing, no refused span ever reaches the
// topic); once the same broker is back the stream drains and 202s resume, and every acknowledged span is
// in the topic. Two ways to fill it: a small `storage.max_bytes`, and (root only: it mounts a tmpfs) a
// disk that is really full, with the default bound.
//
// Stops the suite's broker: the kafka project runs its files one at a time, and the broker is started
// again in `finally` whatever happens here.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startDaemon, tempDir } from '../helpers/daemon.ts';
import { mountTmpfs } from '../helpers/tmpfs.ts';
import { startBroker, stopBroker } from './broker.ts';
import { dirBytes, LoadClient, tally, TopicWatcher } from './daemon-load.ts';
import { createTopic, uniqueTopic } from './helpers.ts';

const bootstrap = inject('kafkaBootstrap');
const brokerDir = inject('kafkaWorkDir');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function config(topic: string, storage: string): string {
  return `receivers:
  http:
    endpoint: 127.0.0.1:0
processors:
  batch:
    timeout: 50ms
exporters:
  kafka:
    brokers: [${bootstrap}]
    topic: ${topic}
    encoding: json
    timeout: 2s
    retry: { initial_interval: 200ms, max_interval: 1s }
storage:
${storage}
service:
  pipelines:
    traces:
      receivers: [http]
      processors: [batch]
      exporters: [kafka]
`;
}

interface FullRun {
  /** Stream directory size while refusing. */
  fullBytes: number;
  ackedBeforeFull: number;
  refusedWhileFull: number;
  /** From the broker's restart to the first 202 after it. */
  recoveredMs: number;
  /** Stream directory size once everything was delivered. */
  drainedBytes: number;
}

/**
 * Sends (~1000 spans/s) until the stream refuses with the broker down, checks the refusals, brings the
 * broker back and checks the recovery. `streamDir` is the pipeline's directory inside storage.directory.
 */
async function fillAndRecover(name: string, storage: string, storageDir: string, detail: RegExp): Promise<FullRun> {
  const topic = uniqueTopic(name);
  await createTopic(bootstrap, topic, 3);
  const dir = await tempDir(`tracehop-kafka-${name}-`);
  const streamDir = path.join(storageDir, 'traces');
  const daemon = await startDaemon(config(topic, storage), { dir });
  const client = new LoadClient({ url: () => daemon.url('http'), senders: 1, spansPerRequest: 50, pauseMs: 50, payloadBytes: 200 });
  let brokerDown = false;
  let watcher: TopicWatcher | undefined;
  try {
    client.start();
    await until(() => client.acked.size > 0, 10_000, 'a first 202');
    brokerDown = true;
    await stopBroker(brokerDir);

    await until(() => (client.statuses.get(503) ?? 0) > 0, 60_000, 'a 503 from the full stream');
    expect(client.lastRefusal).toMatch(detail);
    const ackedBeforeFull = client.acked.size;
    const refusedAtFull = client.statuses.get(503)!;
    await sleep(200);
    const fullBytes = dirBytes(streamDir);
    const fullSegmentBytes = dirBytes(streamDir, '.seg');
    // The client waits Retry-After (1 s) after each 503: three more refusals, and nothing appended meanwhile.
    await until(() => client.statuses.get(503)! >= refusedAtFull + 3, 20_000, 'more 503s');
    expect(client.acked.size, 'no 202 while the stream is full').toBe(ackedBeforeFull);
    expect(dirBytes(streamDir, '.seg'), 'nothing appended while refusing').toBe(fullSegmentBytes);
    expect(client.retryAfter.length).toBeGreaterThanOrEqual(4);
    for (const value of client.retryAfter) expect(value).toMatch(/^[1-9][0-9]*$/);
    const refusedWhileFull = client.statuses.get(503)!;

    await startBroker({ workDir: brokerDir });
    brokerDown = false;
    const restartedAt = Date.now();
    await until(() => client.acked.size > ackedBeforeFull, 60_000, 'a 202 after the broker is back');
    const recoveredMs = Date.now() - restartedAt;
    await sleep(1000);
    await client.stop();

    watcher = await new TopicWatcher(bootstrap).start(topic);
    await watcher.waitForAll(client.acked, 60_000, 1500);
    const kafka = tally(client.acked, watcher.counts);
    let refusedInTopic = 0;
    for (const key of client.refused) if (watcher.counts.has(key)) refusedInTopic++;
    // Delivered segments are deleted once the cursor passed them (the open one may stay while small).
    await until(() => dirBytes(streamDir) < fullBytes / 2, 20_000, 'the drained stream to shrink');
    const drainedBytes = dirBytes(streamDir);
    console.log(
      `${name}: ${client.acked.size} spans acknowledged (${ackedBeforeFull} before the stream was full), ` +
        `${client.refused.size} refused in ${client.statuses.get(503)} answers 503 (Retry-After ${[...new Set(client.retryAfter)].join('/')} s, ` +
        `"${client.lastRefusal}"); stream dir ${fullBytes} B while full, ${drainedBytes} B drained; ` +
        `first 202 ${recoveredMs} ms after the broker was back; kafka: ${watcher.messages} messages, lost ${kafka.lost}, ` +
        `duplicates ${kafka.duplicates}, refused spans in the topic ${refusedInTopic}`,
    );
    expect(kafka.lost).toBe(0);
    expect(kafka.unacknowledged, 'only acknowledged spans were appended').toBe(0);
    expect(refusedInTopic).toBe(0);
    return { fullBytes, ackedBeforeFull, refusedWhileFull, recoveredMs, drainedBytes };
  } finally {
    await client.stop();
    await watcher?.close();
    if (brokerDown) await startBroker({ workDir: brokerDir });
    expect(await daemon.stop('SIGTERM'), 'clean drain on SIGTERM').toBe(0);
  }
}

// A 1 MiB tmpfs for the disk-full case, when this process may mount one (root, as in the CI container).
const tmpfs = mountTmpfs('tracehop-kafka-tmpfs-');
const { mounted, dir: mountPoint } = tmpfs;
if (!mounted) console.log('daemon disk-full case not run: mounting a tmpfs needs root (the stream-level test in test/durability covers it)');

afterAll(() => tmpfs.remove());

describe('daemon stream full while kafka is down (storage: disk)', () => {
  it('storage.max_bytes reached: 503 + Retry-After, nothing appended, recovers once kafka is back', { timeout: 150_000 }, async () => {
    const MAX_BYTES = 512 * 1024;
    const dir = await tempDir('tracehop-kafka-full-data-');
    const run = await fillAndRecover(
      'stream_full',
      `  type: disk\n  directory: ${dir}\n  fsync: always\n  max_bytes: ${MAX_BYTES}`,
      dir,
      /ingest stream full \(storage\.max_bytes 524288 reached\)/,
    );
    // The bound holds (plus the cursor file), and the stream was really at it.
    expect(run.fullBytes).toBeLessThanOrEqual(MAX_BYTES + 4096);
    expect(run.fullBytes).toBeGreaterThan(MAX_BYTES * 0.8);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  if (mounted) {
    it('disk full (1 MiB tmpfs, default max_bytes): 503 + Retry-After, nothing appended, recovers once kafka is back', { timeout: 150_000 }, async () => {
      const run = await fillAndRecover(
        'disk_full',
        `  type: disk\n  directory: ${mountPoint}\n  fsync: always`,
        mountPoint,
        /disk full/,
      );
      expect(run.fullBytes).toBeGreaterThan(512 * 1024);
    });
  }
});
