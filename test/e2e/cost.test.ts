// The cost processor in a running daemon, fed by the real OpenTelemetry JS SDK over OTLP/HTTP: a gpt-4o
// chat span gets tokens x the table's prices, a model from the user's prices file gets the file's, an
// unknown model gets none (a warning, a count in /metrics), and the workflow above them sums the costs (propagate_metrics).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as api from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { runCli, startDaemon, tempDir } from '../helpers/daemon.ts';

const CONFIG = `receivers:
  otlp:
    protocols:
      http: {endpoint: 127.0.0.1:0}
processors:
  namespace: {propagate_metrics: true}
  cost: {prices_file: ./prices.yaml}
  batch: {timeout: 10ms}
exporters:
  file: {path: ./out.jsonl}
service:
  pipelines:
    traces: {receivers: [otlp], processors: [namespace, cost, batch], exporters: [file]}
`;

describe('cost processor end to end', () => {
  it('prices chat spans from the table and the user file, leaves unknown models, sums into the parent', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'prices.yaml'), 'models:\n  "acme-ft-*": {input: 4, output: 8}\n');
    const daemon = await startDaemon(CONFIG, { dir });
    try {
      // The trace's spans in one request, as propagation sums within a request: collected, then exported together.
      const ended = new InMemorySpanExporter();
      const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: ended })] });
      const tracer = provider.getTracer('cost-test');
      const chat = (name: string, model: string, input: number, output: number, parent: api.Context) => tracer.startSpan(name, {
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.system': 'openai', 'gen_ai.request.model': model, 'gen_ai.usage.input_tokens': input, 'gen_ai.usage.output_tokens': output },
      }, parent).end();
      // A second before its children: the SDK's clock has millisecond steps, and a child that starts in the
      // same one as its parent and comes first in the request is not attached under it (Agenta's rule).
      const root = tracer.startSpan('workflow', { attributes: { 'ag.type.span': 'workflow' }, startTime: Date.now() - 1000 });
      const ctx = api.trace.setSpan(api.context.active(), root);
      chat('table', 'gpt-4o', 1200, 300, ctx);
      chat('file', 'acme-ft-7', 1000, 500, ctx);
      chat('unknown', 'mystery-model-1', 50, 50, ctx);
      root.end();
      const exporter = new OTLPTraceExporter({ url: `${daemon.url('otlp')}/v1/traces` });
      const result = await new Promise<{ code: number }>((resolve) => exporter.export(ended.getFinishedSpans(), resolve));
      expect(result.code).toBe(0);
      await provider.shutdown();

      let lines: string[] = [];
      for (let i = 0; i < 400 && lines.length < 4; i++) {
        lines = (await readFile(join(daemon.dir, 'out.jsonl'), 'utf8').catch(() => '')).split('\n').filter((l) => l !== '');
        if (lines.length < 4) await new Promise((r) => setTimeout(r, 50));
      }
      expect(lines).toHaveLength(4);
      const records = new Map(lines.map((l) => {
        const r = JSON.parse(l) as { span_name: string; attributes: Record<string, unknown> };
        return [r.span_name, r.attributes];
      }));
      const costs = (name: string, kind = 'incremental') => ['prompt', 'completion', 'total'].map((k) => records.get(name)![`ag.metrics.costs.${kind}.${k}`] as number | undefined);
      const near = (got: Array<number | undefined>, want: number[]) => want.forEach((w, j) => expect(got[j]).toBeCloseTo(w, 12));
      const table = [1200 * 2.5e-6, 300 * 10e-6];
      const file = [1000 * 4e-6, 500 * 8e-6];
      near(costs('table'), [table[0], table[1], table[0] + table[1]]);
      near(costs('file'), [file[0], file[1], file[0] + file[1]]);
      expect(costs('unknown')).toEqual([undefined, undefined, undefined]);
      near(costs('workflow', 'cumulative'), [table[0] + file[0], table[1] + file[1], table[0] + table[1] + file[0] + file[1]]);
      expect(daemon.logs.some((l) => l.level === 'warn' && l.msg.includes('no price') && l.model === 'mystery-model-1')).toBe(true);
      const metrics = (await (await fetch(`${daemon.url('metrics')}/metrics`)).text()).split('\n');
      expect(metrics).toContain('tracehop_processor_spans_total{processor="cost",outcome="priced"} 2');
      expect(metrics).toContain('tracehop_processor_spans_total{processor="cost",outcome="unknown_model"} 1');
    } finally {
      await daemon.stop();
    }
  }, 60_000);

  it('validate names a bad prices file under its key', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'prices.yaml'), 'models:\n  gpt-4o: {input: "cheap"}\n');
    await writeFile(join(dir, 'tracehop.yaml'), CONFIG);
    const out = await runCli(['validate', '--config', join(dir, 'tracehop.yaml')], {}, dir);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('processors.cost.prices_file');
    expect(out.stderr).toContain('models."gpt-4o".input must be a number of USD per million tokens');
  }, 30_000);
});
