// A full ingest stream turns requests away before reading them: 503 + Retry-After for a well-formed
// body and for a body that would have been a 400, so overload costs no decoding and refuses nothing it
// could have taken. Through the built daemon, with an exporter that cannot deliver (nothing listens on
// its port), so the stream fills and stays full.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startDaemon } from '../helpers/daemon.ts';

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function spans(n: number, offset: number) {
  return {
    spans: Array.from({ length: n }, (_, i) => ({
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
      span_id: (0x1000000000000000n + BigInt(offset + i)).toString(16),
      span_name: 'work',
      start_time: '2026-04-16T18:18:18Z',
      end_time: '2026-04-16T18:18:19Z',
      attributes: { ag: { type: { span: 'task' }, data: { inputs: { text: 'x'.repeat(500) } } } },
    })),
  };
}

describe('a full stream refuses before decoding', () => {
  it('503 + Retry-After for every request while full, a malformed body included; nothing acknowledged is dropped', async () => {
    const port = await closedPort();
    const daemon = await startDaemon(`receivers:
  http:
    endpoint: 127.0.0.1:0
exporters:
  otlp:
    endpoint: http://127.0.0.1:${port}
    retry: {initial_interval: 10s, max_interval: 10s}
storage:
  type: memory
  max_bytes: 200000
service:
  pipelines:
    traces:
      receivers: [http]
      exporters: [otlp]
`);
    try {
      const url = `${daemon.url('http')}/tracing/spans/ingest`;
      const post = (body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      let accepted = 0;
      let refused: Response | undefined;
      for (let i = 0; i < 200 && !refused; i++) {
        const res = await post(JSON.stringify(spans(20, i * 20)));
        if (res.status === 202) accepted += 20;
        else refused = res;
        await res.arrayBuffer();
      }
      expect(accepted).toBeGreaterThan(0);
      expect(refused?.status).toBe(503);
      // Full now: a body that is not even JSON is refused the same way, not answered 400.
      const malformed = await post('{"spans": [not json');
      expect(malformed.status).toBe(503);
      expect(Number(malformed.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await malformed.json()) as { detail: string }).detail).toMatch(/ingest stream full/);
    } finally {
      daemon.child.kill('SIGKILL');
      await daemon.exited;
    }
  });
});
