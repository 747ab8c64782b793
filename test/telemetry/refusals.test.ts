// The two 503 reasons a receiver cannot tell by the status alone, counted apart: the memory limiter
// (a daemon whose limit is below what Node itself takes, so it refuses every request) and a full stream
// (a 1-byte stream whose exporter never delivers: the first request fills it, the next are refused).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../helpers/daemon.ts';
import { freePort } from '../interop/ports.ts';
import { metricsPython, scrape } from './scrape.ts';

const SETUP_TIMEOUT_MS = 10 * 60_000;

let python: string;
const daemons: Daemon[] = [];

beforeAll(async () => {
  python = await metricsPython();
}, SETUP_TIMEOUT_MS);

afterEach(async () => {
  for (const d of daemons.splice(0)) {
    d.child.kill('SIGKILL');
    await d.exited;
  }
});

async function daemon(service: string, storage: string, exporterPort: number): Promise<Daemon> {
  const d = await startDaemon(`receivers:
  http:
    endpoint: 127.0.0.1:0
exporters:
  otlp:
    endpoint: http://127.0.0.1:${exporterPort}
    retry: {initial_interval: 10s, max_interval: 10s}
storage: ${storage}
service:
${service}
  pipelines:
    traces:
      receivers: [http]
      exporters: [otlp]
`);
  daemons.push(d);
  return d;
}

async function post(d: Daemon, i: number): Promise<number> {
  const body = JSON.stringify({ spans: [{ trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: (i + 1).toString(16).padStart(16, '0'), span_name: 's', start_time: 1776363498, end_time: 1776363499 }] });
  const res = await fetch(`${d.url('http')}/tracing/spans/ingest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await res.arrayBuffer();
  return res.status;
}

describe('503 refusals by reason', () => {
  it('counts the memory limiter\'s refusals as memory and a full stream\'s as stream_full', async () => {
    // Nothing listens on the exporters' port: exports fail and are retried, the stream keeps what it took.
    const nowhere = await freePort();
    const limited = await daemon('  memory_limit_mib: 1', '{type: memory}', nowhere);
    const full = await daemon('', '{type: memory, max_bytes: 1}', nowhere);
    expect([await post(limited, 0), await post(limited, 1), await post(limited, 2)]).toEqual([503, 503, 503]);
    expect([await post(full, 0), await post(full, 1), await post(full, 2)]).toEqual([202, 503, 503]);

    const a = await scrape(python, limited.url('metrics'));
    expect(a.all('tracehop_receiver_refused_requests_total').map((s) => [s.labels.reason, s.value])).toEqual([['memory', 3]]);
    expect(a.value('tracehop_receiver_accepted_spans_total', { receiver: 'http' })).toBe(0);
    expect(a.value('tracehop_memory_limiter_refusing')).toBe(1);
    expect(a.value('tracehop_memory_limiter_live_bytes')).toBeGreaterThan(1024 * 1024);

    const b = await scrape(python, full.url('metrics'));
    expect(b.all('tracehop_receiver_refused_requests_total').map((s) => [s.labels.reason, s.value])).toEqual([['stream_full', 2]]);
    expect(b.value('tracehop_receiver_accepted_spans_total', { receiver: 'http' })).toBe(1);
    expect(b.value('tracehop_http_server_request_duration_seconds_count', { route: '/tracing/spans/ingest', status: '503' })).toBe(2);
    expect(b.value('tracehop_memory_limiter_refusing')).toBe(0);
    // The one accepted span waits in the stream for the failing exporter.
    expect(b.value('tracehop_exporter_backlog_spans', { exporter: 'otlp', pipeline: 'traces' })).toBe(1);
    expect(b.value('tracehop_exporter_backlog_bytes', { exporter: 'otlp', pipeline: 'traces' })).toBeGreaterThan(0);
    expect(b.value('tracehop_stream_bytes', { pipeline: 'traces' })).toBeGreaterThan(0);
    expect(b.value('tracehop_stream_max_bytes', { pipeline: 'traces' })).toBe(1);
    expect(b.value('tracehop_exporter_sent_spans_total', { exporter: 'otlp' })).toBe(0);
  });
});
