// `npm run package` as a user runs what it makes: the one executable, copied alone into an empty
// directory, with no Node on the PATH, starts on the built-in default, answers its readiness probe, takes
// a span through the tracing API, writes it where the default says, reads it back from the default's
// trace store and stops cleanly on SIGTERM.
import { execFile } from 'node:child_process';
import { copyFile, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, startDaemon, tempDir } from '../helpers/daemon.ts';

const run = promisify(execFile);

/** Every endpoint of the built-in default on a free port, and no Node to fall back on. */
const ENV = {
  PATH: '/nonexistent',
  NODE_OPTIONS: '',
  TRACEHOP_HTTP_ENDPOINT: '127.0.0.1:0',
  TRACEHOP_OTLP_HTTP_ENDPOINT: '127.0.0.1:0',
  TRACEHOP_OTLP_GRPC_ENDPOINT: '127.0.0.1:0',
  TRACEHOP_HEALTH_ENDPOINT: '127.0.0.1:0',
  TRACEHOP_METRICS_ENDPOINT: '127.0.0.1:0',
};

let built: string;
let home: string;
let executable: string;

beforeAll(async () => {
  // The package script's build step (npm test has already compiled dist/).
  built = await tempDir('tracehop-sea-build-');
  await run(process.execPath, [join(REPO, 'dist/sea/build.js'), built], { cwd: REPO, maxBuffer: 16 * 1024 * 1024 });
  home = await tempDir('tracehop-sea-run-');
  executable = join(home, 'tracehop');
  await copyFile(join(built, 'tracehop'), executable);
  await rm(built, { recursive: true, force: true });
}, 300_000);

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('the single executable (npm run package)', () => {
  it('says its version without a Node or node_modules beside it', async () => {
    const pkg = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { version: string };
    const { stdout } = await run(executable, ['--version'], { cwd: home, env: ENV });
    expect(stdout).toBe(`tracehop ${pkg.version}\n`);
  });

  it('runs the built-in default: ready, takes a span, writes it, reads it back, stops on SIGTERM', async () => {
    const daemon = await startDaemon('', { dir: home, args: [], env: ENV, command: [executable] });
    try {
      const ready = await fetch(daemon.url('health_check') + '/health/ready');
      expect(ready.status).toBe(200);
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const answer = await fetch(daemon.url('http') + '/tracing/spans/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ spans: [{ trace_id: traceId, span_id: '00f067aa0ba902b7', span_name: 'packaged',
          start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:01Z' }] }),
      });
      expect(answer.status).toBe(202);
      // Written by the file exporter of the default, relative to where the executable runs.
      const file = join(home, 'data', 'spans.jsonl');
      let written = '';
      for (let i = 0; i < 200 && !written.includes(traceId); i++) {
        written = await readFile(file, 'utf8').catch(() => '');
        if (!written.includes(traceId)) await new Promise((r) => setTimeout(r, 50));
      }
      const record = JSON.parse(written.trim().split('\n')[0]) as { trace_id: string; span_name: string };
      expect([record.trace_id, record.span_name]).toEqual([traceId, 'packaged']);
      // And kept in the default's trace store (node:sqlite inside the executable), read back over the API
      // and with the executable's own `trace` command.
      let read: { count: number; traces?: Record<string, { spans: Record<string, { span_name: string }> }> } = { count: 0 };
      for (let i = 0; i < 200 && read.count === 0; i++) {
        read = (await (await fetch(`${daemon.url('http')}/tracing/traces/${traceId}`)).json()) as typeof read;
        if (read.count === 0) await new Promise((r) => setTimeout(r, 50));
      }
      expect(read.traces?.[traceId].spans.packaged.span_name).toBe('packaged');
      const shown = await run(executable, ['trace', traceId, '--endpoint', daemon.url('http')], { cwd: home, env: ENV });
      expect(shown.stdout).toBe(`trace ${traceId}: 1 span, from 2026-01-01T00:00:00Z, 1s\n  packaged  [task]  1s  UNSET\n`);
    } finally {
      expect(await daemon.stop('SIGTERM')).toBe(0);
    }
    expect(daemon.logs.map((l) => l.msg)).toContain('stopped');
  });
});
