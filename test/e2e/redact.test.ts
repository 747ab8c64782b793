// The redact processor in a running daemon, fed over OTLP/HTTP by the real OpenTelemetry JS SDK: what
// the file exporter writes has the secrets of prompts, tool arguments, events and span names replaced
// (masked, hashed with the key from the environment, or the attribute dropped), the counts per rule on
// each changed span, and every span sent (spans in = spans out). A hash action without its key stops
// the start with a message naming the variable.
import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as api from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { startDaemon } from '../helpers/daemon.ts';
import { SecretMaker } from '../helpers/redact-secrets.ts';

const KEY = 'e2e-test-hmac-key-0123456789abcdef';
const CONFIG = `receivers:
  otlp:
    protocols:
      http: {endpoint: 127.0.0.1:0}
processors:
  redact:
    actions: {email: hash, stripe: drop}
    deny_keys: ['app.credentials']
    rules:
      - {name: employee_id, pattern: 'EMP-[0-9]{6}'}
  batch: {timeout: 10ms}
exporters:
  file: {path: ./out.jsonl}
service:
  pipelines:
    traces: {receivers: [otlp], processors: [namespace, redact, batch], exporters: [file]}
`;

interface Record_ { span_name: string; attributes: Record<string, unknown>; events?: Array<{ name: string; attributes?: Record<string, unknown> }> }

async function records(dir: string, n: number): Promise<Record_[]> {
  let lines: string[] = [];
  for (let i = 0; i < 400 && lines.length < n; i++) {
    lines = (await readFile(join(dir, 'out.jsonl'), 'utf8').catch(() => '')).split('\n').filter((l) => l !== '');
    if (lines.length < n) await new Promise((r) => setTimeout(r, 50));
  }
  return lines.map((l) => JSON.parse(l) as Record_);
}

describe('redact processor end to end', () => {
  it('writes the spans with their secrets replaced, counted per rule, and every span', async () => {
    const daemon = await startDaemon(CONFIG, { env: { TRACEHOP_REDACT_HASH_KEY: KEY } });
    try {
      const make = new SecretMaker(3);
      const openai = make.openai();
      const email = make.email();
      const stripe = make.stripe();
      const provider = new TracerProvider({
        spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${daemon.url('otlp')}/v1/traces` }) })],
      });
      const tracer = provider.getTracer('redact-test');
      const chat = tracer.startSpan(`chat for ${email}`, { attributes: {
        'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 52,
        'gen_ai.prompt.0.role': 'user', 'gen_ai.prompt.0.content': `My key is ${openai}, card 4111 1111 1111 1111, I am EMP-123456.`,
        'gen_ai.completion.0.role': 'assistant', 'gen_ai.completion.0.content': 'Thanks, I will not repeat them.',
        'app.credentials': 'user=admin;pass=hunter2', 'app.billing': `stripe ${stripe}`,
      } });
      chat.addEvent('log', { message: `mail sent to ${email}` });
      const ctx = api.trace.setSpan(api.context.active(), chat);
      for (let i = 0; i < 5; i++) tracer.startSpan(`step ${i}`, { attributes: { i, note: 'nothing to see' } }, ctx).end();
      chat.end();
      await provider.forceFlush();
      await provider.shutdown();

      const out = await records(daemon.dir, 6);
      expect(out).toHaveLength(6);
      const text = JSON.stringify(out);
      for (const secret of [openai, email, stripe, '4111 1111 1111 1111', 'EMP-123456', 'hunter2']) expect(text).not.toContain(secret);

      const hash = `[HASH:email:${createHmac('sha256', KEY).update(email).digest('hex')}]`;
      const record = out.find((r) => r.span_name.startsWith('chat'))!;
      expect(record.span_name).toBe(`chat for ${hash}`);
      // The client's key and the ag.data key namespace mapped it to: both redacted.
      for (const key of ['gen_ai.prompt.0.content', 'ag.data.inputs.prompt.0.content']) {
        expect(record.attributes[key]).toBe('My key is [REDACTED:openai], card [REDACTED:card], I am [REDACTED:employee_id].');
      }
      expect(record.attributes['app.credentials']).toBe('[REDACTED:deny]');
      expect(record.attributes).not.toHaveProperty('app.billing');
      expect(record.events![0].attributes!.message).toBe(`mail sent to ${hash}`);
      expect(record.attributes['ag.meta.request.model'] ?? record.attributes['gen_ai.request.model']).toBe('gpt-4o');
      expect(Object.fromEntries(Object.entries(record.attributes).filter(([k]) => k.startsWith('ag.meta.redact.')))).toEqual({
        'ag.meta.redact.email': 2, 'ag.meta.redact.openai': 2, 'ag.meta.redact.card': 2, 'ag.meta.redact.employee_id': 2,
        'ag.meta.redact.stripe': 1, 'ag.meta.redact.deny': 1,
      });
      const step = out.find((r) => r.span_name === 'step 0')!;
      expect(Object.keys(step.attributes).some((k) => k.startsWith('ag.meta.redact.'))).toBe(false);
    } finally {
      await daemon.stop();
    }
  }, 60_000);

  it('refuses to start when the hash action has no key in the environment', async () => {
    await expect(startDaemon(CONFIG, { env: { TRACEHOP_REDACT_HASH_KEY: '' } })).rejects.toThrow(/TRACEHOP_REDACT_HASH_KEY is not set/);
  }, 60_000);
});
