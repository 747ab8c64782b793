// `tracehop replay` against running daemons: spans one daemon wrote (its file exporter's output, and the
// same spans as dead-letter lines) are sent into another, which writes exactly the same records; what the
// daemon rejects and what is not a span is counted; a daemon that does not answer is one line on stderr.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startDaemon, tempDir, type Daemon } from '../helpers/daemon.ts';
import { freePort } from '../interop/ports.ts';

const config = (keys = '') => `${keys ? `extensions:\n  api_keys:\n    keys: [{key: ${keys}, project: proj-r}]\n` : ''}receivers:
  http:
    endpoint: 127.0.0.1:0${keys ? '\n    auth: {authenticator: api_keys}' : ''}
processors:
  batch:
    timeout: 10ms
exporters:
  file:
    path: ./out.jsonl
service:
${keys ? '  extensions: [api_keys]\n' : ''}  pipelines:
    traces:
      receivers: [http]
      processors: [namespace, batch]
      exporters: [file]
`;

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

/** Three spans with what real clients send: a parent, an LLM child with messages and tokens, an event. */
const SPANS = [
  { trace_id: TRACE, span_id: '00f067aa0ba90201', span_name: 'agent', span_type: 'agent', start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:03Z',
    attributes: { ag: { data: { inputs: { question: 'capital of France?' } }, session: { id: 's-1' } } } },
  { trace_id: TRACE, span_id: '00f067aa0ba90202', parent_id: '00f067aa0ba90201', span_name: 'chat', span_kind: 'SPAN_KIND_CLIENT', start_time: '2026-01-01T00:00:01Z', end_time: '2026-01-01T00:00:02.5Z',
    attributes: { ag: { type: { span: 'chat' }, data: { inputs: { prompt: [{ role: 'user', content: 'capital of France?' }] }, outputs: { completion: [{ role: 'assistant', content: 'Paris' }] } },
      metrics: { tokens: { incremental: { prompt: 12, completion: 3, total: 15 } } }, meta: { request: { model: 'gpt-4o-mini' } } } } },
  { trace_id: TRACE, span_id: '00f067aa0ba90203', parent_id: '00f067aa0ba90201', span_name: 'tool', start_time: '2026-01-01T00:00:02.5Z', end_time: '2026-01-01T00:00:02.9Z',
    status_code: 'STATUS_CODE_ERROR', status_message: 'timeout', events: [{ name: 'exception', timestamp: '2026-01-01T00:00:02.8Z', attributes: { 'exception.message': 'timeout' } }] },
];

async function lines(daemon: Daemon, n: number): Promise<string[]> {
  const file = join(daemon.dir, 'out.jsonl');
  for (let i = 0; i < 400; i++) {
    const text = await readFile(file, 'utf8').catch(() => '');
    const got = text.split('\n').filter((l) => l !== '');
    if (got.length >= n) return got;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${file}: fewer than ${n} lines`);
}

/** The records a daemon writes for SPANS. */
async function recordsOfSpans(): Promise<string[]> {
  const first = await startDaemon(config());
  try {
    const answer = await fetch(first.url('http') + '/tracing/spans/ingest', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ spans: SPANS }),
    });
    expect(answer.status).toBe(202);
    return await lines(first, SPANS.length);
  } finally {
    await first.stop();
  }
}

describe('tracehop replay', () => {
  it('a file exporter\'s output replayed into another daemon comes out as the same records', async () => {
    const records = await recordsOfSpans();
    const file = join(await tempDir(), 'spans.jsonl');
    await writeFile(file, records.join('\n') + '\n');
    const second = await startDaemon(config());
    try {
      const r = await runCli(['replay', file, '--endpoint', second.url('http'), '--batch', '2']);
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        code: 0, stdout: `${file}: 3 lines, 3 spans sent, 3 accepted, 0 rejected, 0 unreadable\n`, stderr: '',
      });
      expect(await lines(second, 3)).toEqual(records);
    } finally {
      await second.stop();
    }
  });

  it('dead-letter lines go in with the project of the key replay sends; rejected and unreadable lines are counted', async () => {
    const records = await recordsOfSpans();
    const deadLetters = records.map((r) => `{"reason":"message too large","exporter":"kafka","at":"2026-01-01T00:00:05Z","span":${r}}`);
    const broken = JSON.stringify({ ...JSON.parse(records[0]), span_id: '00f067aa0ba90209', start_time: 'yesterday' });
    const file = join(await tempDir(), 'dead-letters.jsonl');
    await writeFile(file, [deadLetters[0], 'not json', deadLetters[1], broken, deadLetters[2], '{"a":1}'].join('\n') + '\n');
    const second = await startDaemon(config('replay-key'));
    try {
      const refused = await runCli(['replay', file, '--endpoint', second.url('http')], { TRACEHOP_API_KEY: 'wrong' });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^tracehop replay: .*answered 401/);
      const r = await runCli(['replay', file, '--endpoint', second.url('http')], { TRACEHOP_API_KEY: 'replay-key' });
      expect({ code: r.code, stdout: r.stdout }).toEqual({
        code: 1,
        stdout: `${file}: 6 lines, 4 spans sent, 3 accepted, 1 rejected, 2 unreadable\n`
          + '  1 x line 2: not a span record or a dead-letter line\n'
          + '  1 x line 6: not a span record or a dead-letter line\n  1 x invalid start_time\n',
      });
      const out = (await lines(second, 3)).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(out).toEqual(records.map((l) => ({ ...(JSON.parse(l) as Record<string, unknown>), project: 'proj-r' })));
    } finally {
      await second.stop();
    }
  });

  it('a daemon that does not answer: one line on stderr and exit 1; usage problems exit 2', async () => {
    const file = join(await tempDir(), 'spans.jsonl');
    await writeFile(file, '');
    const closed = `http://127.0.0.1:${await freePort()}`;
    const r = await runCli(['replay', file, '--endpoint', closed]);
    expect(r.code).toBe(0); // nothing to send, nothing sent
    await writeFile(file, (await recordsOfSpans())[0] + '\n');
    const down = await runCli(['replay', file, '--endpoint', closed]);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^tracehop replay: fetch failed \(ECONNREFUSED\)\n$/);
    expect((await runCli(['replay'])).code).toBe(2);
    expect((await runCli(['replay', file, '--batch', '0'])).code).toBe(2);
    expect((await runCli(['replay', file, '--endpoint', 'localhost:4319'])).code).toBe(2);
  });
});
