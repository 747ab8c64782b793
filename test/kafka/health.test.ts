// The health_check extension of the built daemon against a real broker outage: with a 2 s
// exporter_failure_threshold, /health/ready turns 503 while the broker is down (spans keep coming, so
// the kafka exporter keeps failing) and 200 again once the same broker is back and the backlog drains.
// /health/live answers 200 throughout.
//
// Stops the suite's broker: the kafka project runs its files one at a time, and the broker is started
// again in `finally` whatever happens here.
import { describe, expect, inject, it } from 'vitest';
import { startDaemon, type Daemon } from '../helpers/daemon.ts';
import { startBroker, stopBroker } from './broker.ts';
import { LoadClient } from './daemon-load.ts';
import { createTopic, uniqueTopic } from './helpers.ts';

const bootstrap = inject('kafkaBootstrap');
const brokerDir = inject('kafkaWorkDir');

function config(topic: string): string {
  return `extensions:
  health_check:
    endpoint: 127.0.0.1:0
    exporter_failure_threshold: 2s
receivers:
  http:
    endpoint: 127.0.0.1:0
exporters:
  kafka:
    brokers: [${bootstrap}]
    topic: ${topic}
    encoding: json
    timeout: 2s
    # The return to ready follows the first successful retry: keep the backoff short.
    retry: { initial_interval: 200ms, max_interval: 1s }
storage:
  type: memory
service:
  extensions: [health_check]
  pipelines:
    traces:
      receivers: [http]
      exporters: [kafka]
`;
}

interface Probe {
  status: number;
  body: { ready: boolean; pipelines: Record<string, { exporters: Record<string, { state: string; ready: boolean; backlog_spans: number }> }> };
}

async function probe(daemon: Daemon, path: string): Promise<Probe> {
  const res = await fetch(daemon.url('health_check') + path);
  return { status: res.status, body: (await res.json()) as Probe['body'] };
}

/** Probes /health/ready until `status` (the deadline only guards against hanging). */
async function readyBecomes(daemon: Daemon, status: number, deadlineMs: number): Promise<Probe> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const r = await probe(daemon, '/health/ready');
    if (r.status === status || Date.now() > deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('health_check during a Kafka outage', () => {
  it('ready turns 503 while the broker is down past the threshold and 200 after it is back', { timeout: 240_000 }, async () => {
    const topic = uniqueTopic('health');
    await createTopic(bootstrap, topic, 1);
    const daemon = await startDaemon(config(topic));
    const client = new LoadClient({ url: () => daemon.url('http'), senders: 1, spansPerRequest: 10, pauseMs: 100 });
    let brokerDown = false;
    try {
      const before = await readyBecomes(daemon, 200, 30_000);
      expect(before.status, JSON.stringify(before.body)).toBe(200);
      client.start();

      brokerDown = true;
      await stopBroker(brokerDir);
      const during = await readyBecomes(daemon, 503, 90_000);
      expect(during.status, JSON.stringify(during.body)).toBe(503);
      expect(during.body.pipelines.traces.exporters.kafka).toMatchObject({ state: 'failing', ready: false });
      expect(during.body.pipelines.traces.exporters.kafka.backlog_spans).toBeGreaterThan(0);
      expect((await probe(daemon, '/health/live')).status).toBe(200);

      await startBroker({ workDir: brokerDir });
      brokerDown = false;
      const after = await readyBecomes(daemon, 200, 90_000);
      expect(after.status, JSON.stringify(after.body)).toBe(200);
      expect(after.body.pipelines.traces.exporters.kafka.state).not.toBe('failing');
      expect(client.acked.size).toBeGreaterThan(0);
    } finally {
      await client.stop();
      if (brokerDown) await startBroker({ workDir: brokerDir });
      expect(await daemon.stop('SIGTERM')).toBe(0);
    }
  });
});
