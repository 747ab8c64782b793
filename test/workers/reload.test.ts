// Reload with two workers: `POST /-/reload` and SIGHUP to the primary reach both workers, the answer
// is `applied` only when both applied the config, and says which worker failed when one did.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, startDaemon, tempDir, type LogLine } from '../helpers/daemon.ts';
import { freePort } from '../interop/ports.ts';
import { eventually, postSpan, spanId, writtenIds } from './traffic.ts';
import { metric, reload } from '../helpers/telemetry.ts';

const config = (path: string, workers = 2) => `receivers:
  http: {endpoint: 127.0.0.1:0}
exporters:
  file: {path: ${path}}
storage: {type: memory}
service:
  workers: ${workers}
  pipelines:
    traces: {receivers: [http], exporters: [file]}
`;

describe('reload with two workers', () => {
  it('reaches every worker by POST /-/reload and by SIGHUP, and reports a failure in any', async () => {
    const daemon = await startDaemon(config('./a.jsonl'));
    const file = join(daemon.dir, 'tracehop.yaml');
    const metrics = daemon.endpoints.metrics[0];
    const reloadedBy = (generation: number) => daemon.logs
      .filter((l) => l.msg === 'config reloaded' && l.generation === generation).map((l) => l.worker).sort();
    try {
      await writeFile(file, config('./b.jsonl'));
      expect(await reload(metrics)).toEqual({ status: 200, body: { result: 'applied', generation: 2 } });
      // The workers' log lines come on another pipe than the answer.
      expect(await eventually(() => reloadedBy(2).length === 3)).toBe(true);
      expect(reloadedBy(2)).toEqual([0, 1, 'primary']);

      await writeFile(file, config('./c.jsonl'));
      daemon.child.kill('SIGHUP');
      expect(await eventually(() => reloadedBy(3).length === 3)).toBe(true);
      expect(reloadedBy(3)).toEqual([0, 1, 'primary']);

      // Invalid: refused by the primary, before any worker hears of it.
      await writeFile(file, config('./c.jsonl').replace('exporters: [file]', 'exporters: [nowhere]'));
      const invalid = await reload(metrics);
      expect(invalid.status).toBe(400);
      expect(invalid.body.problems!.join('\n')).toContain('nowhere');
      await writeFile(file, config('./c.jsonl', 3));
      expect((await reload(metrics)).body.problems).toEqual(['service.workers: changed, and takes effect only when tracehop restarts']);

      // Valid, but the file's directory can never be made: each worker fails to start the exporter and
      // keeps running its config; the answer names both.
      await writeFile(join(daemon.dir, 'not-a-dir'), 'x');
      await writeFile(file, config('./not-a-dir/out.jsonl'));
      const failed = await reload(metrics);
      expect(failed.status).toBe(500);
      expect(failed.body.result).toBe('failed');
      expect(failed.body.generation).toBe(3);
      expect(failed.body.problems!.filter((p) => p.includes('not-a-dir')).map((p) => p.split(':', 1)[0]).sort()).toEqual(['worker 0', 'worker 1']);

      // One reload of the daemon counts once, however many workers applied it.
      const text = await (await fetch(`${metrics}/metrics`)).text();
      const results = ['applied', 'invalid', 'failed'].map((r) => metric(text, 'tracehop_config_reloads_total', `result="${r}"`));
      expect(results).toEqual([2, 2, 1]);

      // Both workers run generation 3: the spans go to c.<worker>.jsonl.
      const ids = Array.from({ length: 40 }, (_, i) => spanId(i + 1));
      expect(await Promise.all(ids.map((id) => postSpan(daemon.url('http'), id)))).toEqual(ids.map(() => 202));
      expect(await daemon.stop('SIGTERM')).toBe(0);
      const written = await writtenIds(daemon.dir, 'c.');
      expect(written.ids.sort()).toEqual(ids);
      expect((await writtenIds(daemon.dir, 'b.')).ids).toEqual([]);
    } finally {
      daemon.child.kill('SIGKILL');
    }
  }, 60_000);

  it('answers a reload asked for while the workers start, once they have, and still shuts down', async () => {
    // The metrics listener is the primary's first: a reload can be asked for before any worker has
    // its config. One asked then used to reach a worker that was not listening: never answered, it
    // held every later reload and the shutdown.
    const dir = await tempDir();
    const file = join(dir, 'tracehop.yaml');
    await writeFile(file, config('./a.jsonl'));
    const port = await freePort();
    const child = spawn(process.execPath, [CLI, '--config', file, '--set', `service.telemetry.metrics.address=127.0.0.1:${port}`], {
      cwd: dir, stdio: ['ignore', 'ignore', 'pipe'],
    });
    const logs: LogLine[] = [];
    let pending = '';
    child.stderr!.on('data', (d: Buffer) => {
      pending += d;
      let nl;
      while ((nl = pending.indexOf('\n')) >= 0) {
        try { logs.push(JSON.parse(pending.slice(0, nl)) as LogLine); } catch { /* not a log line */ }
        pending = pending.slice(nl + 1);
      }
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      // Asked as soon as the primary listens.
      while (!(await accepts(port))) await new Promise((r) => setTimeout(r, 5));
      const early = reload(`http://127.0.0.1:${port}`);
      const answer = await Promise.race([early, new Promise<undefined>((r) => setTimeout(() => r(undefined), 20_000))]);
      expect(answer).toEqual({ status: 200, body: { result: 'applied', generation: 2 } });
      // Asked before the workers had started, it ran after.
      const started = logs.findIndex((l) => l.msg === 'tracehop started');
      const reloaded = logs.findIndex((l) => l.msg === 'config reloaded' && l.worker === 'primary');
      expect(started).toBeGreaterThanOrEqual(0);
      expect(reloaded).toBeGreaterThan(started);
      child.kill('SIGTERM');
      expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running'), 20_000))])).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}
