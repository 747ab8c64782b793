// The memory limiter protects without locking out (issue 22, item 6), through the built daemon over
// loopback: one large OTLP request pushes the process past the soft limit; once its spans are delivered,
// requests are accepted again (at most one is refused, on a sample taken before the garbage was
// collected), and what is live returns near its level before the burst: no buffer, pool or suspended
// frame keeps the burst's size.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ExportRequestEncoder } from '../../codec/otlp/index.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { Span } from '../../model/span.ts';
import { startDaemon, type Daemon } from '../helpers/daemon.ts';

const MiB = 1024 * 1024;
const PROBE = fileURLToPath(new URL('../helpers/memory-probe.ts', import.meta.url));
const BURST_SPANS = 60_000;
const SOFT_LIMIT_MIB = 80;

function span(i: number): Span {
  const start = 1776363498000000000n + BigInt(i) * 1_000_000n;
  return {
    traceId: (0xabc000 + Math.floor(i / 100)).toString(16).padStart(32, '0'),
    spanId: (i + 1).toString(16).padStart(16, '0'),
    name: `tool-${i}`,
    kind: 3,
    startNs: start,
    endNs: start + 250_000_000n,
    status: { code: 1 },
    attributes: new AttributeList([
      ['ag.type.span', 'tool'],
      ['ag.data.inputs.prompt.0.content', `What is the weather in city number ${i}?`],
      ['ag.data.outputs.completion.0.content', 'Sunny, 21 degrees, light wind from the west.'],
      ['gen_ai.usage.input_tokens', 42 + (i % 7)],
    ]),
    resource: new AttributeList([['service.name', 'burst-test']]),
    scope: { name: 'burst' },
  };
}

function body(first: number, count: number): Uint8Array {
  return new ExportRequestEncoder().encode(Array.from({ length: count }, (_, i) => span(first + i)));
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, deadlineMs = 60_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function linesIn(file: string): Promise<number> {
  const bytes = await readFile(file).catch(() => Buffer.alloc(0));
  let n = 0;
  for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) n++;
  return n;
}

/** What is live in the daemon after a collection (the probe's answer to SIGUSR2). */
async function liveBytes(daemon: Daemon): Promise<number> {
  const seen = daemon.logs.length;
  daemon.child.kill('SIGUSR2');
  const line = await until('the memory probe', () => daemon.logs.slice(seen).find((l) => l.msg === 'memory probe'), 10_000);
  return line.live_bytes as number;
}

let daemon: Daemon | undefined;
afterEach(async () => {
  daemon?.child.kill('SIGKILL');
  await daemon?.exited;
  daemon = undefined;
});

describe('memory limiter after a burst', () => {
  it.each(['memory', 'disk'])('storage %s: past the soft limit, then accepted again and back near the pre-burst memory', async (storage) => {
    daemon = await startDaemon(`receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:0
        max_request_body_size: 200000000
        max_spans_per_request: 1000000
exporters:
  file:
    path: ./spans.jsonl
    rotation: {max_megabytes: 0}
storage:
  type: ${storage}
  max_bytes: 2000000000
  fsync: never
service:
  memory_limit_mib: 200
  memory_spike_limit_mib: ${200 - SOFT_LIMIT_MIB}
  telemetry: {logs: {level: debug}}
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
`, { env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${PROBE}`.trim() } });
    const url = `${daemon.url('otlp')}/v1/traces`;
    const post = (bytes: Uint8Array) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: bytes });
    const spansFile = join(daemon.dir, 'spans.jsonl');

    let delivered = 0;
    const deliver = async (bytes: Uint8Array, spans: number) => {
      const res = await post(bytes);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      delivered += spans;
      await until('the spans delivered', async () => ((await linesIn(spansFile)) >= delivered ? true : undefined));
    };

    // What is live returns near its level before a burst (which held ~60 MiB of spans at its peak).
    const before = await liveBytes(daemon);
    expect(before).toBeLessThan(SOFT_LIMIT_MIB * MiB);
    await deliver(body(0, BURST_SPANS), BURST_SPANS);
    const after = await liveBytes(daemon);
    expect(after).toBeLessThan(before + 16 * MiB);

    // No lock-out: after another burst, every request is accepted after a few refusals at most (a sample
    // of garbage over the hard limit is refused at once; the collection right after it, at most one a
    // second, clears the way; on a busy machine the exporter may still hold the burst for that second).
    await deliver(body(BURST_SPANS, BURST_SPANS), BURST_SPANS);
    let refused = 0;
    for (let i = 0; i < 10; i++) {
      const small = body(2 * BURST_SPANS + i * 10, 10);
      for (;;) {
        const res = await post(small);
        await res.arrayBuffer();
        if (res.status === 200) break;
        expect(res.status).toBe(503);
        refused++;
        expect(refused).toBeLessThanOrEqual(3);
        await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after')) * 1000));
      }
    }
    await until('the small requests delivered', async () => ((await linesIn(spansFile)) >= delivered + 100 ? true : undefined));

    // The bursts went past the soft limit, and the limiter collected.
    const collections = daemon.logs.filter((l) => l.msg === 'memory limiter collected garbage');
    expect(collections.some((l) => (l.before_mib as number) > SOFT_LIMIT_MIB)).toBe(true);
  });
});
