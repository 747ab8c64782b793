// The CLI conveniences as a user meets them: the built-in default (with its health probes, moved by
// environment variables), print-default-config, --set, and the message on a Node that is too old.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../config/default.ts';
import { REQUIRED_NODE_MAJOR } from '../../cmd/node-version.ts';
import { CLI, REPO, runCli, startDaemon, tempDir } from '../helpers/daemon.ts';
import { runProcess } from '../helpers/process.ts';

/** Every endpoint of the built-in default on a free port, so the test runs beside anything. */
const FREE_PORTS = {
  TRACEHOP_HTTP_ENDPOINT: '127.0.0.1:0',
  TRACEHOP_OTLP_HTTP_ENDPOINT: '127.0.0.1:0',
  TRACEHOP_OTLP_GRPC_ENDPOINT: '127.0.0.1:0',
  TRACEHOP_HEALTH_ENDPOINT: '127.0.0.1:0',
  TRACEHOP_METRICS_ENDPOINT: '127.0.0.1:0',
};

function run(node: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return runProcess(node, args, { env });
}

describe('the built-in default and the CLI conveniences', () => {
  it('print-default-config prints the default, which validates as a file', async () => {
    const printed = await runCli(['print-default-config']);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(DEFAULT_CONFIG);
    const file = join(await tempDir(), 'default.yaml');
    await writeFile(file, printed.stdout);
    const checked = await runCli(['validate', '--config', file]);
    expect({ code: checked.code, stderr: checked.stderr }).toEqual({ code: 0, stderr: '' });
    expect((await runCli(['print-default-config', 'extra'])).code).toBe(2);
  });

  it('runs the default with endpoints from the environment and --set, and answers its readiness probe', async () => {
    const daemon = await startDaemon('', { args: ['--set', 'exporters.file.path=./moved/spans.jsonl', '--set=exporters.stdout.verbosity=basic'], env: FREE_PORTS });
    try {
      const ready = await fetch(daemon.url('health_check') + '/health/ready');
      expect(ready.status).toBe(200);
      const body = (await ready.json()) as { ready: boolean; receivers: Record<string, { state: string }> };
      expect(body.ready).toBe(true);
      expect(Object.keys(body.receivers).sort()).toEqual(['http', 'otlp']);
      expect(daemon.url('http')).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(daemon.endpoints.otlp).toHaveLength(2);
      const res = await fetch(daemon.url('http') + '/tracing/spans/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ spans: [{ trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7', span_name: 'chat', start_time: 1776363498, end_time: 1776363499 }] }),
      });
      expect(res.status).toBe(202);
    } finally {
      expect(await daemon.stop()).toBe(0);
    }
    const written = await readFile(join(daemon.dir, 'moved', 'spans.jsonl'), 'utf8');
    expect(JSON.parse(written.trim()).span_id).toBe('00f067aa0ba902b7');
  });

  it("serves the README's example back: the span written with curl is read from the default's store", async () => {
    // The body of the README's `curl ... /tracing/spans/ingest -d '...'`, so the test follows the README.
    const readme = await readFile(join(REPO, 'README.md'), 'utf8');
    const example = /curl -s -XPOST localhost:4319\/tracing\/spans\/ingest [^\n]*-d '([^']+)'/.exec(readme);
    expect(example).not.toBeNull();
    const body = example![1];
    const { trace_id: traceId, span_id: spanId } = (JSON.parse(body) as { spans: { trace_id: string; span_id: string }[] }).spans[0];
    const readTrace = new RegExp(`curl -s localhost:4319/tracing/traces/${traceId}`);
    expect(readme).toMatch(readTrace);

    const daemon = await startDaemon('', { args: [], env: FREE_PORTS });
    try {
      const api = daemon.url('http');
      const written = await fetch(api + '/tracing/spans/ingest', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(written.status).toBe(202);
      // Acknowledged means in the ingest stream; the store has it once the batch after it is committed.
      let read: { count: number; traces?: Record<string, { spans: Record<string, Record<string, unknown>> }> } = { count: 0 };
      for (const deadline = Date.now() + 20_000; read.count === 0 && Date.now() < deadline; ) {
        const res = await fetch(`${api}/tracing/traces/${traceId}`);
        expect(res.status).toBe(200);
        read = (await res.json()) as typeof read;
        if (read.count === 0) await new Promise((r) => setTimeout(r, 50));
      }
      expect(read.count).toBe(1);
      const chat = read.traces![traceId].spans.chat;
      expect(chat).toMatchObject({
        trace_id: traceId, span_id: spanId, span_name: 'chat', span_type: 'chat',
        start_time: '2026-04-16T18:18:18Z', end_time: '2026-04-16T18:18:19.5Z',
        attributes: { ag: { type: { span: 'chat' }, data: { inputs: { q: 'hi' } } } },
      });
    } finally {
      expect(await daemon.stop()).toBe(0);
    }
  });

  it('a bad --set is a config problem: exit 2 with --set:N:COL, for validate and for run', async () => {
    const expected = '--set:1:25 receivers.http.endpoint: must be host:port, such as 127.0.0.1:4319 (got "nowhere")\n';
    const validate = await runCli(['validate', '--config', 'examples/sidecar.yaml', '--set', 'receivers.http.endpoint=nowhere']);
    expect({ code: validate.code, stderr: validate.stderr }).toEqual({ code: 2, stderr: expected });
    const start = await runCli(['--set', 'receivers.http.endpoint=nowhere'], FREE_PORTS);
    expect({ code: start.code, stderr: start.stderr }).toEqual({ code: 2, stderr: expected });
    // validate without --config checks the built-in default, its variables and the --set overrides.
    const builtIn = await runCli(['validate', '--set', 'receivers.http.endpoint=nowhere']);
    expect({ code: builtIn.code, stderr: builtIn.stderr }).toEqual({ code: 2, stderr: expected });
    const fine = await runCli(['validate', '--set', 'receivers.http.endpoint=0.0.0.0:4319']);
    expect({ code: fine.code, stdout: fine.stdout }).toEqual({ code: 0, stdout: '<built-in default>: ok\n' });
    const usage = await runCli(['--set']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--set needs path=value');
  });

  it(`on a Node older than ${REQUIRED_NODE_MAJOR}, says which Node it needs and exits 1`, async () => {
    // The machine's own older Node when there is one (the case this guards: a system node 20), and
    // always this Node presenting itself as 20 before the entry runs.
    const disguise = `data:text/javascript,Object.defineProperty(process,'versions',{value:{...process.versions,node:'20.11.1'}})`;
    const runs = [run(process.execPath, ['--import', disguise, CLI, '--version'])];
    const system = '/usr/bin/node';
    if (existsSync(system) && system !== process.execPath) {
      const version = await run(system, ['--version']);
      if (Number(version.stdout.trim().replace(/^v/, '').split('.')[0]) < REQUIRED_NODE_MAJOR) runs.push(run(system, [CLI, '--version']));
    }
    for (const result of await Promise.all(runs)) {
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(new RegExp(`^tracehop: needs Node\\.js ${REQUIRED_NODE_MAJOR} or newer, but runs on Node\\.js 20\\.`));
      expect(result.stderr).not.toContain('SyntaxError');
    }
  });
});
