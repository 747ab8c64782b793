// The store-read-after-write scenario (issue 25's target, read-api.md §2.5 and §12 test 34): spans sent at
// 1,000 spans/s over OTLP/HTTP to a daemon whose pipeline ends in the store, and each acknowledged trace
// polled with GET /tracing/traces/{id} until it shows every span of the request. The figure is the time
// from the acknowledgement to the first GET that shows them all.
import { spansInOrder } from '../model/read-trace.ts';
import { otlpProtoBody } from './bodies.ts';
import { quantile } from './quantile.ts';
import { removeScratch } from './scratch.ts';
import { startTracehop, type Pin } from './target.ts';

/** 10 requests/s of 100 spans: 1,000 spans/s, one trace per request. */
const REQUESTS_PER_SECOND = 10;
const SPANS_PER_REQUEST = 100;
/** Between two GETs of one trace: the resolution of the figure. */
const POLL_MS = 10;
/** A trace not readable by then counts as lost (and the row says how many). */
const GIVE_UP_MS = 30_000;

/**
 * The shipped defaults where they matter: the disk stream with fsync always, the batch processor's and the
 * store's settings, namespace before batch.
 */
const CONFIG = `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:0
  http:
    endpoint: 127.0.0.1:0
processors:
  batch: {}
exporters:
  store:
    path: DIR/store.db
storage: {type: disk, directory: DIR/stream}
service:
  telemetry:
    metrics:
      address: 127.0.0.1:0
  pipelines:
    traces:
      receivers: [otlp, http]
      processors: [namespace, batch]
      exporters: [store]
`;

function traceIdOf(request: number): string {
  // As bench/bodies.ts numbers the traces of its requests.
  return (request + 1).toString(16).padStart(16, '0') + (0xabcdef).toString(16).padStart(16, '0');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** ms from the acknowledgement until GET shows all the request's spans; undefined: never within GIVE_UP_MS. */
async function readable(readBase: string, traceId: string, ackedAt: number): Promise<number | undefined> {
  for (;;) {
    const res = await fetch(`${readBase}/tracing/traces/${traceId}`);
    const body = (await res.json()) as { count: number; traces?: Record<string, { spans: Record<string, unknown> }> };
    const now = performance.now();
    if (body.count === 1 && spansInOrder(body.traces![traceId].spans).length === SPANS_PER_REQUEST) return now - ackedAt;
    if (now - ackedAt > GIVE_UP_MS) return undefined;
    await sleep(POLL_MS);
  }
}

export async function storeReadAfterWrite(durationMs: number, pin: Pin): Promise<{ spansPerSecond: number; note: string }> {
  const requests = Math.max(1, Math.round((durationMs / 1000) * REQUESTS_PER_SECOND));
  const bodies = Array.from({ length: requests }, (_, i) => otlpProtoBody(i, SPANS_PER_REQUEST));
  const target = await startTracehop('store-read-after-write', CONFIG, pin);
  try {
    const write = `${target.endpoints.otlp[0]}/v1/traces`;
    const read = target.endpoints.http[0];
    const waits: Array<Promise<number | undefined>> = [];
    let refused = 0;
    const started = performance.now();
    // An open loop: request i leaves at i / REQUESTS_PER_SECOND s whatever the earlier ones are doing.
    const sends = bodies.map(async (body, i) => {
      await sleep(Math.max(0, started + (i * 1000) / REQUESTS_PER_SECOND - performance.now()));
      const res = await fetch(write, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body });
      await res.arrayBuffer();
      if (!res.ok) {
        refused++;
        return;
      }
      waits.push(readable(read, traceIdOf(i), performance.now()));
    });
    await Promise.all(sends);
    const sentSeconds = (performance.now() - started) / 1000;
    const took = (await Promise.all(waits)).filter((ms): ms is number => ms !== undefined).sort((a, b) => a - b);
    const lost = waits.length - took.length;
    const at = (q: number) => quantile(took, q)?.toFixed(0) ?? '-';
    return {
      spansPerSecond: (waits.length * SPANS_PER_REQUEST) / sentSeconds,
      note: `${waits.length} traces of ${SPANS_PER_REQUEST} spans over OTLP/HTTP at ${REQUESTS_PER_SECOND * SPANS_PER_REQUEST} spans/s, default disk stream, batch and store settings; ` +
        `ack -> readable (GET every ${POLL_MS} ms shows every span): p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms` +
        `${lost > 0 ? `; ${lost} never readable within ${GIVE_UP_MS / 1000} s` : ''}${refused > 0 ? `; ${refused} requests refused` : ''} (target: p99 <= 1000 ms)`,
    };
  } finally {
    await target.stop();
    removeScratch(target.dir);
  }
}
