// One worker cannot start (its own file is a directory) while the others are still starting: the
// primary stops them and exits 1. A `stop` sent to a worker that was not listening yet used to be
// dropped: that worker started and served, and the primary waited for its exit for ever.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDaemon, tempDir } from '../helpers/daemon.ts';

const config = `receivers:
  http: {endpoint: 127.0.0.1:0}
exporters:
  file: {path: ./spans.jsonl}
storage: {type: memory}
service:
  workers: 3
  pipelines:
    traces: {receivers: [http], exporters: [file]}
`;

describe('a worker that cannot start', () => {
  it('stops the workers still starting, and the primary exits 1', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'tracehop.yaml'), config);
    // Worker 2 writes spans.2.jsonl: a directory there fails its file exporter at start.
    await mkdir(join(dir, 'spans.2.jsonl'));
    const started = startDaemon(config, { dir });
    const outcome = await Promise.race([
      started.then(() => 'started', (error: Error) => error.message),
      new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 20_000)),
    ]);
    expect(outcome).toMatch(/^daemon exited with 1 before starting/);
    expect(outcome).toContain('worker 2 exited with 1 before it started');
  }, 60_000);
});
