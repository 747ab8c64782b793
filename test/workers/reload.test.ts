// Reload with two workers: `POST /-/reload` and SIGHUP to the primary reach both workers, the answer
// is `applied` only when both applied the config, and says which worker failed when one did.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDaemon } from '../helpers/daemon.ts';
import { eventually, metric, postSpan, spanId, writtenIds } from './traffic.ts';

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

interface Outcome {
  status: number;
  body: { result: string; generation: number; problems?: string[] };
}

async function reload(metricsUrl: string): Promise<Outcome> {
  const res = await fetch(`${metricsUrl}/-/reload`, { method: 'POST' });
  return { status: res.status, body: await res.json() as Outcome['body'] };
}

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
});
