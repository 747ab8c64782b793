// An attribute KEY that is not well-formed UTF-16 (a lone surrogate: OTLP/JSON text can carry "k\ud800",
// and the receiver accepts it) survives the disk stream: sent by the real OTLP/JSON exporter, held on
// disk while the only exporter cannot deliver, and delivered from the file by the next start. Before the
// fix the record's key failed to decode and the acknowledged span went to quarantine instead.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { startDaemon } from '../helpers/daemon.ts';
import { waitForLines } from '../interop/files.ts';
import { freePort } from '../interop/ports.ts';

const KEY = 'k\ud800';

const holding = (downPort: number) => `receivers:
  otlp:
    protocols:
      http: {endpoint: 127.0.0.1:0}
exporters:
  otlp:
    endpoint: http://127.0.0.1:${downPort}
    retry: {initial_interval: 50ms, max_interval: 100ms}
service:
  shutdown_timeout: 1s
  pipelines:
    traces: {receivers: [otlp], exporters: [otlp]}
`;

const delivering = `receivers:
  otlp:
    protocols:
      http: {endpoint: 127.0.0.1:0}
exporters:
  file: {path: ./out.jsonl}
service:
  pipelines:
    traces: {receivers: [otlp], exporters: [file]}
`;

describe('a lone surrogate in an attribute key, through the disk stream and a restart', () => {
  it('is delivered from the stream file by the next start, not quarantined', async () => {
    const first = await startDaemon(holding(await freePort()));
    try {
      const provider = new TracerProvider({
        spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${first.url('otlp')}/v1/traces` }) })],
      });
      const tracer = provider.getTracer('lone-surrogate');
      tracer.startSpan('odd key', { attributes: { [KEY]: 'value', 'plain.key': 'a\ud800b' } }).end();
      tracer.startSpan('plain', { attributes: { 'plain.key': 'x' } }).end();
      await provider.forceFlush();
      await provider.shutdown();
    } finally {
      await first.stop();
    }

    const second = await startDaemon(delivering, { dir: first.dir });
    try {
      const lines = await waitForLines(join(second.dir, 'out.jsonl'), (l) => l.length, 2, 20_000, () => JSON.stringify(second.logs.slice(-5)));
      const records = lines.map((l) => JSON.parse(l) as { span_name: string; attributes: Record<string, unknown> });
      expect(records.map((r) => r.span_name).sort()).toEqual(['odd key', 'plain']);
      const odd = records.find((r) => r.span_name === 'odd key')!;
      expect(odd.attributes[KEY]).toBe('value');
      expect(odd.attributes['plain.key']).toBe('a\ud800b');
      expect(existsSync(join(second.dir, 'data', 'traces', 'quarantine.jsonl'))).toBe(false);
      expect(second.logs.some((l) => /quarantin|torn/.test(l.msg))).toBe(false);
    } finally {
      await second.stop();
    }
  }, 60_000);
});
