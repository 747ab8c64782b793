// The limit processor in a running daemon, fed by the real OpenTelemetry JS SDK and its OTLP/HTTP
// protobuf exporter: a 5 MB prompt comes out capped and marked, an inline image as its description, and
// every span sent is written (spans in = spans out).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as api from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { startDaemon } from '../helpers/daemon.ts';

const CONFIG = `receivers:
  otlp:
    protocols:
      http: {endpoint: 127.0.0.1:0}
processors:
  limit:
    max_value_bytes: 65536
  batch: {timeout: 10ms}
exporters:
  file: {path: ./out.jsonl}
service:
  pipelines:
    traces: {receivers: [otlp], processors: [namespace, limit, batch], exporters: [file]}
`;

describe('limit processor end to end', () => {
  it('caps a 5 MB prompt, describes an inline image, and writes every span', async () => {
    const daemon = await startDaemon(CONFIG);
    try {
      const prompt = 'Summarise this: ' + 'lorem ipsum dolor sit amet, é語🙂 '.repeat(160_000);
      const image = Buffer.alloc(300_000, 3);
      const provider = new TracerProvider({
        spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${daemon.url('otlp')}/v1/traces` }) })],
      });
      const tracer = provider.getTracer('limit-test');
      const chat = tracer.startSpan('chat', { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.prompt.0.role': 'user', 'gen_ai.prompt.0.content': prompt } });
      const ctx = api.trace.setSpan(api.context.active(), chat);
      tracer.startSpan('vision', { attributes: { 'ag.data.inputs.image': `data:image/jpeg;base64,${image.toString('base64')}` } }, ctx).end();
      for (let i = 0; i < 8; i++) tracer.startSpan(`step ${i}`, { attributes: { i } }, ctx).end();
      chat.end();
      await provider.forceFlush();
      await provider.shutdown();

      let lines: string[] = [];
      for (let i = 0; i < 400 && lines.length < 10; i++) {
        lines = (await readFile(join(daemon.dir, 'out.jsonl'), 'utf8').catch(() => '')).split('\n').filter((l) => l !== '');
        if (lines.length < 10) await new Promise((r) => setTimeout(r, 50));
      }
      expect(lines).toHaveLength(10);
      const records = lines.map((l) => JSON.parse(l) as { span_name: string; attributes: Record<string, unknown> });
      const chatRecord = records.find((r) => r.span_name === 'chat')!;
      const size = Buffer.byteLength(prompt, 'utf8');
      expect(size).toBeGreaterThan(5_000_000);
      // Both the client's key and the mapped ag.data key are capped (namespace ran first).
      for (const key of ['gen_ai.prompt.0.content', 'ag.data.inputs.prompt.0.content']) {
        const value = chatRecord.attributes[key] as string;
        expect(Buffer.byteLength(value, 'utf8')).toBeLessThanOrEqual(65536);
        expect(value.endsWith(`[truncated: ${size} bytes]`)).toBe(true);
        expect(prompt.startsWith(value.slice(0, value.indexOf('[truncated')))).toBe(true);
      }
      expect(chatRecord.attributes['ag.meta.limits.truncated']).toBe(2);
      const vision = records.find((r) => r.span_name === 'vision')!;
      expect(vision.attributes['ag.data.inputs.image']).toBe(
        `[media image/jpeg, 300000 bytes, sha256:${createHash('sha256').update(image).digest('hex')}]`,
      );
      expect(vision.attributes['ag.meta.limits.media']).toBe(1);
    } finally {
      await daemon.stop();
    }
  }, 60_000);
});
