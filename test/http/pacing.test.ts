// Intake pacing through the built daemon: with an exporter that works but is slower than the clients,
// requests wait for it instead of filling the stream. Here the stream's bound is small enough that,
// without pacing, the same load fills it and gets 503s (docs/decisions/0370); with pacing every request
// is accepted and every span delivered.
import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeExportRequest } from '../helpers/otlp-decode.ts';
import { startDaemon } from '../helpers/daemon.ts';

/** An OTLP/HTTP endpoint that answers each export after `delayMs`, counting the spans it got. */
async function slowCollector(delayMs: number): Promise<{ server: Server; port: number; spans: () => number }> {
  let spans = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      spans += decodeExportRequest(req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).spans.length;
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, spans: () => spans };
}

function body(n: number, offset: number): string {
  return JSON.stringify({
    spans: Array.from({ length: n }, (_, i) => ({
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
      span_id: (0x2000000000000000n + BigInt(offset + i)).toString(16),
      span_name: 'work',
      start_time: '2026-04-16T18:18:18Z',
      end_time: '2026-04-16T18:18:19Z',
      attributes: { ag: { type: { span: 'task' }, data: { inputs: { text: 'x'.repeat(500) } } } },
    })),
  });
}

describe('intake pacing', () => {
  it('a slow but working exporter holds clients back instead of filling the stream: no 503, nothing lost', async () => {
    const collector = await slowCollector(20);
    const daemon = await startDaemon(`receivers:
  http:
    endpoint: 127.0.0.1:0
processors:
  batch: {send_batch_size: 50, timeout: 10ms}
exporters:
  otlp:
    endpoint: http://127.0.0.1:${collector.port}
storage:
  type: memory
  max_bytes: 1200000
service:
  pipelines:
    traces:
      receivers: [http]
      processors: [batch]
      exporters: [otlp]
`);
    try {
      const url = `${daemon.url('http')}/tracing/spans/ingest`;
      const requests = 150;
      const perRequest = 20;
      const statuses: number[] = [];
      // Eight clients, each sending its next request when the last is answered.
      let next = 0;
      await Promise.all(Array.from({ length: 8 }, async () => {
        while (next < requests) {
          const i = next++;
          const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(perRequest, i * perRequest) });
          await res.arrayBuffer();
          statuses.push(res.status);
        }
      }));
      // 3,000 spans of ~1.7 KB each (as the stream counts them) are four times its bound, and the
      // exporter needs over a second to deliver them: accepted without a refusal only because clients
      // were held back.
      expect(statuses.filter((s) => s !== 202)).toEqual([]);
      expect(await daemon.stop()).toBe(0);
      expect(collector.spans()).toBe(requests * perRequest);
    } finally {
      daemon.child.kill('SIGKILL');
      collector.server.close();
    }
  });
});
