// The real Langfuse Python SDK (pinned in requirements.txt), unmodified, sends to tracehop as it sends to
// Langfuse: OTLP/HTTP to `{base_url}/api/public/otel/v1/traces` with HTTP Basic auth, the secret key as the
// password. Both receivers serve that path; the api_keys extension takes the secret key and gives its
// project; namespace maps the generation into the same ag.* slots as a gen_ai chat call.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/process.ts';
import { PYTHON_DIR, VENV_SETUP_TIMEOUT_MS, venvPython } from './venv.ts';
import { startDaemon } from '../helpers/daemon.ts';

const CONFIG = `extensions:
  api_keys:
    keys: [{key: sk-lf-secret, project: proj-lf}]
receivers:
  http:
    endpoint: 127.0.0.1:0
    auth: {authenticator: api_keys}
  otlp:
    protocols:
      http: {endpoint: 127.0.0.1:0, auth: {authenticator: api_keys}}
processors:
  batch: {timeout: 10ms}
exporters:
  file: {path: ./out.jsonl}
service:
  extensions: [api_keys]
  pipelines:
    traces: {receivers: [http, otlp], processors: [namespace, batch], exporters: [file]}
`;

interface SpanRecord {
  trace_id: string;
  span_id: string;
  span_name: string;
  span_type: string;
  project?: string;
  session_id?: string;
  user_id?: string;
  attributes: Record<string, unknown>;
}

/** The ag.* attributes of a record, without the computed duration (it depends on the clock). */
function agOf(record: SpanRecord): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record.attributes).filter(([k]) => k.startsWith('ag.') && k !== 'ag.metrics.duration.cumulative'));
}

describe('the Langfuse Python SDK delivers to tracehop', () => {
  let python = '';

  beforeAll(async () => {
    python = await venvPython();
  }, VENV_SETUP_TIMEOUT_MS);

  it.each(['otlp', 'http'])('through the %s receiver: a generation lands in the ag.* slots, with the key\'s project', async (receiver) => {
    const daemon = await startDaemon(CONFIG);
    try {
      const base = daemon.endpoints[receiver][0];
      const refused = await runProcess(python, [join(PYTHON_DIR, 'send_langfuse.py'), '--base-url', base, '--secret-key', 'sk-wrong']);
      expect(refused.code).toBe(0); // the SDK logs export failures, it does not fail the application
      const sent = await runProcess(python, [join(PYTHON_DIR, 'send_langfuse.py'), '--base-url', base, '--secret-key', 'sk-lf-secret']);
      expect(sent.code, sent.stderr.slice(-3000)).toBe(0);
      const ids = JSON.parse(sent.stdout) as { trace_id: string; agent: string; chat: string };
      let records: SpanRecord[] = [];
      for (let i = 0; i < 400 && records.length < 2; i++) {
        const text = await readFile(join(daemon.dir, 'out.jsonl'), 'utf8').catch(() => '');
        records = text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as SpanRecord);
        if (records.length < 2) await new Promise((r) => setTimeout(r, 25));
      }
      // Only the accepted key's spans: the wrong key's were refused with 401.
      expect(records.map((r) => [r.trace_id, r.span_id, r.project]).sort()).toEqual(
        [[ids.trace_id, ids.agent, 'proj-lf'], [ids.trace_id, ids.chat, 'proj-lf']].sort(),
      );
      const chat = records.find((r) => r.span_id === ids.chat)!;
      const agent = records.find((r) => r.span_id === ids.agent)!;
      expect([chat.span_name, chat.span_type, agent.span_name, agent.span_type]).toEqual(['chat', 'chat', 'agent', 'agent']);
      expect([agent.session_id, agent.user_id]).toEqual(['session-3', 'user-7']);
      expect(agOf(chat)).toEqual({
        'ag.type.span': 'chat',
        'ag.type.trace': 'invocation',
        'ag.data.inputs.prompt.0.role': 'system',
        'ag.data.inputs.prompt.0.content': 'Be brief.',
        'ag.data.inputs.prompt.1.role': 'user',
        'ag.data.inputs.prompt.1.content': 'capital of France?',
        'ag.data.outputs.completion.0.role': 'assistant',
        'ag.data.outputs.completion.0.content': 'Paris',
        'ag.metrics.tokens.incremental.prompt': 12,
        'ag.metrics.tokens.incremental.completion': 3,
        'ag.metrics.tokens.incremental.total': 15,
        'ag.metrics.costs.incremental.prompt': 0.0018,
        'ag.metrics.costs.incremental.completion': 0.0018,
        'ag.metrics.costs.incremental.total': 0.0036,
        'ag.session.id': 'session-3',
        'ag.user.id': 'user-7',
        'ag.meta.request.model': 'gpt-4o-mini',
        'ag.meta.request.temperature': 0.2,
        'ag.meta.response.model': 'gpt-4o-mini',
        'ag.meta.request.max_tokens': 64,
        'ag.meta.trace.name': 'qa',
        'ag.meta.tags': ['demo'],
        'ag.meta.environment': 'test',
        'ag.meta.release': 'r-1',
      });
      expect(agOf(agent)).toEqual(expect.objectContaining({
        'ag.type.span': 'agent', 'ag.data.inputs.question': 'capital of France?', 'ag.data.outputs.answer': 'Paris',
      }));
    } finally {
      await daemon.stop();
    }
  }, 120_000);
});
