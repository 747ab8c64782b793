// `tracehop tap` against a running daemon: the spans passing its pipeline after the processors (or as
// received), filtered; a tap whose reader stalls misses tap output, is told how much, and the pipeline
// loses nothing.
import { connect } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startDaemon, type Daemon } from '../helpers/daemon.ts';
import { startTap } from '../helpers/tap.ts';

const CONFIG = `receivers:
  http:
    endpoint: 127.0.0.1:0
processors:
  batch:
    timeout: 10ms
exporters:
  file:
    path: ./out.jsonl
service:
  pipelines:
    traces:
      receivers: [http]
      processors: [namespace, batch]
      exporters: [file]
`;

const T1 = '4bf92f3577b34da6a3ce929d0e0e4736';
const T2 = '5bf92f3577b34da6a3ce929d0e0e4737';

function span(traceId: string, i: number, attributes: Record<string, unknown> = {}) {
  return { trace_id: traceId, span_id: (0x1000 + i).toString(16).padStart(16, '0'), span_name: `op-${i}`,
    start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:01Z', attributes };
}

async function post(daemon: Daemon, spans: unknown[]): Promise<void> {
  const answer = await fetch(daemon.url('http') + '/tracing/spans/ingest', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ spans }) });
  expect(answer.status).toBe(202);
}


describe('tracehop tap', () => {
  it('prints the matching spans after the processors, or as received', async () => {
    const daemon = await startDaemon(CONFIG);
    try {
      const processed = await startTap(daemon, ['--trace-id', T1, '--count', '2']);
      const received = await startTap(daemon, ['--received', '--attribute', 'ag.data.inputs.q=hi', '--count', '1']);
      await post(daemon, [span(T2, 0), span(T1, 1, { ag: { data: { inputs: { q: 'hi' } } } }), span(T1, 2)]);
      expect(await processed.exited).toBe(0);
      const lines = processed.stdout().trim().split('\n').map((l) => JSON.parse(l) as { trace_id: string; span_name: string; attributes: Record<string, unknown> });
      expect(lines.map((l) => [l.trace_id, l.span_name])).toEqual([[T1, 'op-1'], [T1, 'op-2']]);
      // After namespace: the computed type and trace type are there.
      expect(lines[0].attributes['ag.type.trace']).toBe('invocation');
      expect(await received.exited).toBe(0);
      const before = JSON.parse(received.stdout().trim()) as { span_name: string; attributes: Record<string, unknown> };
      expect(before.span_name).toBe('op-1');
      expect(before.attributes).toEqual({ 'ag.data.inputs.q': 'hi' });
    } finally {
      await daemon.stop();
    }
  });

  it('a reader that stalls misses tap output and is told so; every span still reaches the exporter', async () => {
    const daemon = await startDaemon(CONFIG);
    try {
      const { hostname, port } = new URL(daemon.endpoints.metrics[0]);
      const socket = connect(Number(port), hostname);
      await new Promise((r) => socket.once('connect', r));
      socket.write(`GET /tap?trace_id=${T1} HTTP/1.1\r\nhost: x\r\n\r\n`);
      socket.pause();
      const big = 'x'.repeat(1000);
      const requests = 30;
      const per = 1000;
      for (let r = 0; r < requests; r++) {
        await post(daemon, Array.from({ length: per }, (_, i) => span(T1, r * per + i, { ag: { data: { inputs: { text: big } } } })));
      }
      let written = 0;
      for (let i = 0; i < 600 && written < requests * per; i++) {
        written = (await readFile(join(daemon.dir, 'out.jsonl'), 'utf8').catch(() => '')).split('\n').filter((l) => l !== '').length;
        if (written < requests * per) await new Promise((r) => setTimeout(r, 50));
      }
      expect(written).toBe(requests * per);
      // Reading again: the tap says how many spans it could not send while this reader stalled.
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      socket.resume();
      // One more request, so the tap writes (and the missed count, sent on drain, is surely out).
      await post(daemon, [span(T1, 999_999)]);
      for (let i = 0; i < 200 && !/"tap":"missed","spans":\d+/.test(text); i++) await new Promise((r) => setTimeout(r, 50));
      const missed = Number(/"tap":"missed","spans":(\d+)/.exec(text)?.[1]);
      expect(missed).toBeGreaterThan(0);
      expect(missed).toBeLessThan(requests * per);
      socket.destroy();
    } finally {
      await daemon.stop();
    }
  }, 120_000);

  it('an unknown pipeline or point is answered; a daemon that stops ends its taps', async () => {
    const daemon = await startDaemon(CONFIG);
    const open = await startTap(daemon, []);
    try {
      const address = daemon.endpoints.metrics[0].replace('http://', '');
      const unknown = await runCli(['tap', '--address', address, '--pipeline', 'nope']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('answered 404: pipeline: no pipeline "nope" (pipelines: traces)');
      const point = await fetch(`http://${address}/tap?point=middle`);
      expect([point.status, (await point.text()).trim()]).toEqual([400, 'point: "received" or "processed" (got "middle")']);
    } finally {
      expect(await daemon.stop()).toBe(0);
    }
    expect(await open.exited).toBe(0);
    expect((await runCli(['tap', '--count', '0'])).code).toBe(2);
  });
});
