// The load generator, run as its own process (pinned to its own CPU when taskset exists) so that it does
// not share an event loop with what it measures. Request bodies are encoded once, before the clock starts,
// and replayed round-robin over keep-alive connections at a fixed concurrency (closed loop), or at a fixed
// request rate (open loop) for the steady-load measurement.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { quantile } from './quantile.ts';

export interface LoadSpec {
  url: string;
  headers: Record<string, string>;
  /** Files holding one pre-encoded body each. */
  bodyFiles: string[];
  spansPerRequest: number;
  concurrency: number;
  durationMs: number;
  /** Requests per second for an open loop; absent: closed loop as fast as answers come. */
  rate?: number;
  warmupMs: number;
}

export interface LoadResult {
  requests: number;
  non2xx: number;
  errors: number;
  spansAccepted: number;
  seconds: number;
  spansPerSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  statuses: Record<string, number>;
}

async function run(spec: LoadSpec): Promise<LoadResult> {
  const bodies = spec.bodyFiles.map((f) => readFileSync(f));
  const agent = new Agent({ keepAlive: true, maxSockets: spec.concurrency });
  const target = new URL(spec.url);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let requests = 0;
  let non2xx = 0;
  let errors = 0;
  let accepted = 0;
  let next = 0;
  let measuring = false;

  const send = (): Promise<void> =>
    new Promise((resolve) => {
      const body = bodies[next++ % bodies.length];
      const started = process.hrtime.bigint();
      const req = request(
        {
          agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST',
          headers: { ...spec.headers, 'content-length': body.length },
        },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => {
            if (measuring) {
              const ms = Number(process.hrtime.bigint() - started) / 1e6;
              latencies.push(ms);
              requests++;
              const code = res.statusCode ?? 0;
              statuses[code] = (statuses[code] ?? 0) + 1;
              if (code >= 200 && code < 300) accepted += spec.spansPerRequest;
              else non2xx++;
            }
            resolve();
          });
        },
      );
      req.on('error', () => {
        if (measuring) errors++;
        resolve();
      });
      req.end(body);
    });

  let stopAt = Date.now() + spec.warmupMs;
  const closedLoop = async () => {
    while (Date.now() < stopAt) await send();
  };
  const openLoop = async () => {
    const interval = 1000 / spec.rate!;
    let due = performance.now();
    const inflight = new Set<Promise<void>>();
    while (Date.now() < stopAt) {
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      due += interval;
      const p: Promise<void> = send().then(() => {
        inflight.delete(p);
      });
      inflight.add(p);
    }
    await Promise.all(inflight);
  };
  const loop = spec.rate ? openLoop : () => Promise.all(Array.from({ length: spec.concurrency }, closedLoop));

  if (spec.warmupMs > 0) await loop();
  measuring = true;
  // Tells the parent to start its CPU window now.
  process.stdout.write('measuring\n');
  const t0 = process.hrtime.bigint();
  stopAt = Date.now() + spec.durationMs;
  await loop();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pick = (q: number) => quantile(latencies, q) ?? 0;
  return {
    requests, non2xx, errors, spansAccepted: accepted, seconds,
    spansPerSecond: accepted / seconds,
    latencyMs: { p50: pick(0.5), p99: pick(0.99), max: pick(1) },
    statuses,
  };
}

// Run as a child: the spec arrives as argv[2] (JSON); the result goes to stdout as one JSON line.
if (process.argv[2]) {
  run(JSON.parse(process.argv[2]) as LoadSpec).then(
    (result) => process.stdout.write(JSON.stringify(result) + '\n'),
    (err) => {
      process.stderr.write(String(err?.stack ?? err) + '\n');
      process.exit(1);
    },
  );
}
