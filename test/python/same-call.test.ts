// One chat call, made by the OpenAI Python SDK against a local OpenAI-compatible server, traced once by
// OpenInference and once by OpenLLMetry (both unmodified, pinned in requirements-llm.txt) and sent to
// tracehop over OTLP/HTTP: namespace gives both the same span type, the same `ag.data` (inputs and
// outputs), the same model slots and the same token counts.
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/process.ts';
import { startDaemon, type Daemon } from '../helpers/daemon.ts';
import { PYTHON_DIR, VENV_SETUP_TIMEOUT_MS, venvPython } from './venv.ts';

const CONFIG = `receivers:
  otlp:
    protocols:
      http: {endpoint: 127.0.0.1:0}
processors:
  batch: {timeout: 10ms}
exporters:
  file: {path: ./out.jsonl}
service:
  pipelines:
    traces: {receivers: [otlp], processors: [namespace, batch], exporters: [file]}
`;

/** What an OpenAI-compatible server answers to the call (the same for both runs). */
const COMPLETION = {
  id: 'chatcmpl-same-call', object: 'chat.completion', created: 1776363498, model: 'gpt-4o-mini-2024-07-18',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Paris' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 21, completion_tokens: 1, total_tokens: 22 },
};

interface SpanRecord {
  span_type: string;
  resource?: Record<string, unknown>;
  attributes: Record<string, unknown>;
}

let python: string;
let openai: Server;
let openaiUrl: string;
let daemon: Daemon;

beforeAll(async () => {
  python = await venvPython('requirements-llm.txt');
  openai = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(COMPLETION));
    });
  });
  await new Promise<void>((resolve) => openai.listen(0, '127.0.0.1', resolve));
  openaiUrl = `http://127.0.0.1:${(openai.address() as { port: number }).port}/v1`;
  daemon = await startDaemon(CONFIG);
}, VENV_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await daemon?.stop();
  await new Promise((resolve) => openai?.close(resolve));
});

async function chatSpan(instrumentation: string): Promise<SpanRecord> {
  const run = await runProcess(python, [`${PYTHON_DIR}chat_call.py`, instrumentation, `${daemon.url('otlp')}/v1/traces`, openaiUrl]);
  expect(run.stderr).not.toContain('Traceback');
  expect(run.stdout.trim()).toBe('Paris');
  for (let i = 0; i < 200; i++) {
    const lines = (await readFile(join(daemon.dir, 'out.jsonl'), 'utf8').catch(() => '')).split('\n').filter((l) => l !== '');
    const found = lines.map((l) => JSON.parse(l) as SpanRecord)
      .find((r) => JSON.stringify(r).includes(`same-call-${instrumentation}`) && r.span_type === 'chat');
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no chat span from ${instrumentation} in the output`);
}

/** The keys both instrumentations are expected to agree on. */
function agreed(record: SpanRecord): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record.attributes).filter(([k]) =>
    k.startsWith('ag.data.') || k.startsWith('ag.metrics.tokens.incremental.') || k === 'ag.meta.request.model' || k === 'ag.meta.response.model' || k === 'ag.type.span'));
}

describe('one chat call, two instrumentations', () => {
  it('OpenInference and OpenLLMetry give the same ag.data, model slots and tokens', async () => {
    const openinference = await chatSpan('openinference');
    const openllmetry = await chatSpan('openllmetry');
    expect(agreed(openinference)).toEqual(agreed(openllmetry));
    expect(agreed(openinference)).toMatchObject({
      'ag.type.span': 'chat',
      'ag.data.inputs.prompt.0.role': 'system',
      'ag.data.inputs.prompt.0.content': 'Answer in one word.',
      'ag.data.inputs.prompt.1.role': 'user',
      'ag.data.inputs.prompt.1.content': 'What is the capital of France?',
      'ag.data.outputs.completion.0.role': 'assistant',
      'ag.data.outputs.completion.0.content': 'Paris',
      'ag.metrics.tokens.incremental.prompt': 21,
      'ag.metrics.tokens.incremental.completion': 1,
      'ag.metrics.tokens.incremental.total': 22,
      'ag.meta.request.model': 'gpt-4o-mini',
      'ag.meta.response.model': 'gpt-4o-mini-2024-07-18',
    });
    // The finish reason is the response's, in the same place from both.
    expect(openinference.attributes['ag.meta.response.finish_reasons']).toEqual(['stop']);
    expect(openllmetry.attributes['ag.meta.response.finish_reasons']).toEqual(['stop']);
  }, 120_000);
});
