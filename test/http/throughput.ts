// A quick figure, not a test: requests/s of 100-span flat JSON requests to /tracing/spans/ingest, sent one
// after another on one keep-alive connection to an in-process receiver with the real processors.
// Run: node_modules/.bin/node test/http/throughput.ts [seconds]
import { Agent, request } from 'node:http';
import { recordingConsumer, startReceiver } from './harness.ts';

const SPANS = 100;
const seconds = Number(process.argv[2] ?? 5);

function body(seq: number): Buffer {
  const spans = [];
  for (let i = 0; i < SPANS; i++) {
    spans.push({
      trace_id: (seq + 1).toString(16).padStart(32, '0'),
      span_id: (i + 1).toString(16).padStart(16, '0'),
      parent_id: i === 0 ? undefined : '0000000000000001',
      span_name: `call-${i}`,
      span_kind: 'SPAN_KIND_INTERNAL',
      start_time: '2026-04-16T18:18:18.123456Z',
      end_time: 1776363499123,
      attributes: {
        ag: {
          type: { span: i === 0 ? 'workflow' : 'llm' },
          data: { inputs: { prompt: 'What is the capital of France?', n: i }, outputs: 'Paris' },
          metrics: { tokens: { incremental: { prompt: 12, completion: 3, total: 15 } } },
          meta: { request: { model: 'gpt-4o' } },
        },
        'service.name': 'bench',
      },
    });
  }
  return Buffer.from(JSON.stringify({ spans }));
}

const consumer = recordingConsumer();
// Keep memory flat: count instead of holding every appended span.
let appended = 0;
consumer.consume = async (batch) => {
  appended += batch.spans.length;
  return undefined;
};
const running = await startReceiver({}, consumer);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const bodies = Array.from({ length: 16 }, (_, i) => body(i));

function once(b: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: running.port, method: 'POST', path: '/tracing/spans/ingest', agent,
        headers: { 'content-type': 'application/json', 'content-length': b.length } },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(b);
  });
}

// Warm-up, then measure.
for (let i = 0; i < 300; i++) await once(bodies[i % bodies.length]);
appended = 0;
const cpuStart = process.cpuUsage();
const start = performance.now();
let requests = 0;
while (performance.now() - start < seconds * 1000) {
  const status = await once(bodies[requests % bodies.length]);
  if (status !== 202) throw new Error(`status ${status}`);
  requests++;
}
const elapsed = (performance.now() - start) / 1000;
const cpu = process.cpuUsage(cpuStart);
console.log(JSON.stringify({
  requests_per_s: Math.round(requests / elapsed),
  // CPU time of this process (client and receiver together) per request: steadier than req/s on a
  // machine shared with other work.
  cpu_ms_per_request: Number(((cpu.user + cpu.system) / 1000 / requests).toFixed(3)),
  spans_per_s: Math.round(appended / elapsed),
  body_bytes: bodies[0].length,
  seconds: Number(elapsed.toFixed(2)),
}));
await running.close();
agent.destroy();
