// `tracehop traces` and `tracehop trace ID` against a running daemon with a store: the recent traces as
// lines, one trace as a tree (children under their parent, an orphan at the top, an error status), the
// key's project deciding what is seen, and the failures a user meets (no such trace, no daemon, no store,
// bad arguments) as one line and an exit code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startDaemon, type Daemon } from '../helpers/daemon.ts';
import { freePort } from '../interop/ports.ts';

const KEY_A = 'key-project-a-0001';
const KEY_B = 'key-project-b-0002';
/** A project with no trace. */
const KEY_C = 'key-project-c-0003';

const CONFIG = `extensions:
  api_keys:
    keys: [{key: ${KEY_A}, project: proj-a}, {key: ${KEY_B}, project: proj-b}, {key: ${KEY_C}, project: proj-c}]
receivers:
  http:
    endpoint: 127.0.0.1:0
    auth: {authenticator: api_keys}
processors:
  batch:
    timeout: 10ms
exporters:
  store:
    path: ./data/store.db
service:
  extensions: [api_keys]
  pipelines:
    traces:
      receivers: [http]
      processors: [namespace, batch]
      exporters: [store]
`;

const T1 = '4bf92f3577b34da6a3ce929d0e0e4736';
const T2 = '5bf92f3577b34da6a3ce929d0e0e4737';
const T3 = '6bf92f3577b34da6a3ce929d0e0e4738';

/** T1: an agent with two children (one failed) and an orphan whose parent never arrived. */
const T1_SPANS = [
  { trace_id: T1, span_id: '00f067aa0ba90201', span_name: 'agent', span_type: 'agent', start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:03Z' },
  { trace_id: T1, span_id: '00f067aa0ba90203', parent_id: '00f067aa0ba90201', span_name: 'tool', span_type: 'tool', start_time: '2026-01-01T00:00:02.5Z', end_time: '2026-01-01T00:00:02.9Z',
    status_code: 'STATUS_CODE_ERROR', status_message: 'timeout' },
  { trace_id: T1, span_id: '00f067aa0ba90202', parent_id: '00f067aa0ba90201', span_name: 'chat', span_type: 'chat', start_time: '2026-01-01T00:00:01Z', end_time: '2026-01-01T00:00:02.5Z',
    status_code: 'STATUS_CODE_OK' },
  { trace_id: T1, span_id: '00f067aa0ba90204', parent_id: 'ffffffffffffffff', span_name: 'late', span_type: 'task', start_time: '2026-01-01T00:00:04Z', end_time: '2026-01-01T00:00:04.00085Z' },
];
/** T2 starts a day later, so it lists first. */
const T2_SPANS = [{ trace_id: T2, span_id: '00f067aa0ba90301', span_name: 'chat', span_type: 'chat', start_time: '2026-01-02T00:00:00Z', end_time: '2026-01-02T00:00:01.5Z' }];
/** T3 belongs to the other project. */
const T3_SPANS = [{ trace_id: T3, span_id: '00f067aa0ba90401', span_name: 'other', start_time: '2026-01-03T00:00:00Z', end_time: '2026-01-03T00:00:01Z' }];

let daemon: Daemon;
let api: string;

async function write(key: string, spans: unknown[]): Promise<void> {
  const res = await fetch(api + '/tracing/spans/ingest', {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `ApiKey ${key}` }, body: JSON.stringify({ spans }),
  });
  expect(res.status).toBe(202);
}

/** Waits until the store answers the trace with `spans` spans (writes are acknowledged before they are stored). */
async function stored(key: string, traceId: string, spans: number): Promise<void> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    const res = await fetch(`${api}/tracing/spans/query`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `ApiKey ${key}` },
      body: JSON.stringify({ focus: 'span', filter: { conditions: [{ field: 'trace_id', value: traceId }] } }),
    });
    if (((await res.json()) as { count: number }).count === spans) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`trace ${traceId} not stored`);
}

beforeAll(async () => {
  daemon = await startDaemon(CONFIG);
  api = daemon.url('http');
  await write(KEY_A, T1_SPANS);
  await write(KEY_A, T2_SPANS);
  await write(KEY_B, T3_SPANS);
  await stored(KEY_A, T1, 4);
  await stored(KEY_A, T2, 1);
  await stored(KEY_B, T3, 1);
});

afterAll(async () => {
  await daemon?.stop();
});

describe('tracehop traces', () => {
  it("lists the key's project's traces, newest first, with root, span count, start and duration", async () => {
    const listed = await runCli(['traces', '--endpoint', api, '--api-key', KEY_A]);
    expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(listed.stdout).toBe(
      'TRACE_ID                          ROOT   SPANS  START                 DURATION\n' +
      `${T2}  chat   1      2026-01-02T00:00:00Z  1.5s\n` +
      `${T1}  agent  4      2026-01-01T00:00:00Z  4s\n`,
    );
    const other = await runCli(['traces', '--endpoint', api], { TRACEHOP_API_KEY: KEY_B });
    expect(other.stdout.split('\n').slice(1)).toEqual([`${T3}  other  1      2026-01-03T00:00:00Z  1s`, '']);
  });

  it('--limit keeps the newest N', async () => {
    const one = await runCli(['traces', '--limit', '1', '--endpoint', api, '--api-key', KEY_A]);
    expect(one.code).toBe(0);
    expect(one.stdout.trim().split('\n').map((l) => l.split(' ')[0])).toEqual(['TRACE_ID', T2]);
  });

  it('says so when the store holds no trace for the key', async () => {
    const empty = await runCli(['traces', '--endpoint', api, '--api-key', KEY_C]);
    expect(empty).toEqual({ code: 0, stdout: '', stderr: 'tracehop traces: no trace stored\n' });
  });
});

describe('tracehop trace ID', () => {
  it('prints the trace as a tree: children by start time under their parent, the orphan at the top', async () => {
    const shown = await runCli(['trace', T1, '--endpoint', api, '--api-key', KEY_A]);
    expect({ code: shown.code, stderr: shown.stderr }).toEqual({ code: 0, stderr: '' });
    expect(shown.stdout).toBe(
      `trace ${T1}: 4 spans, from 2026-01-01T00:00:00Z, 4s\n` +
      '  agent  [agent]  3s  UNSET\n' +
      '    chat  [chat]  1.5s  OK\n' +
      '    tool  [tool]  400ms  ERROR: timeout\n' +
      '  late  [task]  850µs  UNSET  (parent ffffffffffffffff not stored)\n',
    );
    // Any trace-id form the API takes (a dashed UUID here) names the same trace.
    const dashed = `${T2.slice(0, 8)}-${T2.slice(8, 12)}-${T2.slice(12, 16)}-${T2.slice(16, 20)}-${T2.slice(20)}`;
    const second = await runCli(['trace', dashed, '--endpoint', api, '--api-key', KEY_A]);
    expect(second).toEqual({ code: 0, stdout: `trace ${T2}: 1 span, from 2026-01-02T00:00:00Z, 1.5s\n  chat  [chat]  1.5s  UNSET\n`, stderr: '' });
  });

  it("another project's trace is not found: exit 1 and one line", async () => {
    const missing = await runCli(['trace', T3, '--endpoint', api, '--api-key', KEY_A]);
    expect(missing).toEqual({ code: 1, stdout: '', stderr: `tracehop trace: no trace ${T3} in the store\n` });
    const seen = await runCli(['trace', T3, '--endpoint', api, '--api-key', KEY_B]);
    expect(seen.code).toBe(0);
  });
});

describe('failures of the read commands', () => {
  it('a wrong key, no daemon, or a daemon without a store: exit 1 and one line naming the cause', async () => {
    const denied = await runCli(['traces', '--endpoint', api, '--api-key', 'not-a-key']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(new RegExp(`^tracehop traces: ${api}/tracing/spans/query answered 401: .+\\n$`));

    const nobody = `http://127.0.0.1:${await freePort()}`;
    const refused = await runCli(['trace', T1, '--endpoint', nobody]);
    expect(refused).toEqual({ code: 1, stdout: '', stderr: `tracehop trace: cannot reach ${nobody}/tracing/traces/${T1} (ECONNREFUSED)\n` });


    const noStore = await startDaemon(CONFIG.replace(/    auth: .*\n/, '').replace('store:\n    path: ./data/store.db', 'file:\n    path: ./out.jsonl').replace('[store]', '[file]'));
    try {
      const answered = await runCli(['trace', T1, '--endpoint', noStore.url('http')]);
      expect(answered.code).toBe(1);
      expect(answered.stderr).toMatch(/^tracehop trace: http:\/\/127\.0\.0\.1:\d+\/tracing\/traces\/4bf92f3577b34da6a3ce929d0e0e4736 answered 501 \(the daemon has no store exporter serving reads\): .+\n$/);
    } finally {
      await noStore.stop();
    }
  });

  it('bad arguments: exit 2 with the usage', async () => {
    for (const [args, message] of [
      [['trace'], 'trace needs a trace ID'],
      [['trace', 'nope'], 'trace: "nope" is not a trace id (32 hex digits or a UUID)'],
      [['trace', T1, T2], `trace: unknown argument "${T2}"`],
      [['trace', T1, '--limit', '3'], 'trace: unknown argument "--limit"'],
      [['traces', '--limit', '0'], 'traces: --limit must be a positive integer'],
      [['traces', '--limit'], 'traces: --limit needs a value'],
      [['traces', '--endpoint', 'localhost:4319'], 'traces: --endpoint must be an http(s) URL (got "localhost:4319")'],
    ] as const) {
      const result = await runCli([...args]);
      expect({ args, code: result.code, first: result.stderr.split('\n')[0] }).toEqual({ args, code: 2, first: `tracehop: ${message}` });
    }
  });
});
