// `tracehop inspect` on the stream of a real daemon: while it runs (the lock, a caught-up reader and one
// whose peer is down, with that reader's whole backlog), after it stopped, with a segment damaged on disk,
// and after the daemon's restart moved the damage to the quarantine file.
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startDaemon, tempDir, type Daemon } from '../helpers/daemon.ts';
import { freePort } from '../interop/ports.ts';

const config = (downPort: number) => `receivers:
  http:
    endpoint: 127.0.0.1:0
processors:
  batch:
    timeout: 10ms
exporters:
  file:
    path: ./out.jsonl
  otlp:
    endpoint: http://127.0.0.1:${downPort}
    retry: {initial_interval: 50ms, max_interval: 100ms}
service:
  shutdown_timeout: 1s
  pipelines:
    traces:
      receivers: [http]
      processors: [batch]
      exporters: [file, otlp]
`;

interface Report {
  records: number;
  spans: number;
  segments: { name: string; damage?: { reason: string } }[];
  readers: { id: string; committed?: number; backlog: { records: number; spans: number } }[];
  quarantined: number;
  lock?: { pid: number; running: boolean };
}

async function inspect(dir: string): Promise<Report> {
  const r = await runCli(['inspect', dir, '--json']);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  const reports = JSON.parse(r.stdout) as Report[];
  expect(reports).toHaveLength(1);
  return reports[0];
}

async function post(daemon: Daemon, request: number, spans: number): Promise<void> {
  const body = {
    spans: Array.from({ length: spans }, (_, i) => ({
      trace_id: '4bf92f3577b34da6a3ce929d0e0e47' + String(request).padStart(2, '0'), span_id: '00f067aa0ba902' + String(i).padStart(2, '0'),
      span_name: 'inspected', start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:01Z',
    })),
  };
  const answer = await fetch(daemon.url('http') + '/tracing/spans/ingest', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(answer.status).toBe(202);
}

async function fileLines(daemon: Daemon, n: number): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const text = await readFile(join(daemon.dir, 'out.jsonl'), 'utf8').catch(() => '');
    if (text.split('\n').filter((l) => l !== '').length >= n) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the file exporter did not write everything');
}

describe('tracehop inspect', () => {
  it('shows segments, readers\' backlogs, the lock, damage and quarantine of a real stream', async () => {
    const down = await freePort();
    const daemon = await startDaemon(config(down));
    const stream = join(daemon.dir, 'data', 'traces');
    try {
      for (let r = 0; r < 3; r++) await post(daemon, r, 4);
      await fileLines(daemon, 12);
      const running = await inspect(join(daemon.dir, 'data'));
      expect(running.spans).toBe(12);
      expect(running.lock).toEqual({ pid: daemon.child.pid, running: true });
      const file = running.readers.find((r) => r.id === 'file');
      const otlp = running.readers.find((r) => r.id === 'otlp');
      expect(file?.backlog).toEqual(expect.objectContaining({ spans: 0, records: 0 }));
      expect(otlp?.backlog).toEqual(expect.objectContaining({ spans: 12, records: running.records }));
    } finally {
      await daemon.stop();
    }
    const stopped = await inspect(stream);
    expect(stopped.lock).toBeUndefined();
    expect(stopped.readers.find((r) => r.id === 'otlp')?.backlog.spans).toBe(12);

    // A damaged byte in the first record's header: the walk of that segment stops there.
    const segment = join(stream, stopped.segments[0].name);
    const bytes = await readFile(segment);
    bytes[9] ^= 0xff;
    await writeFile(segment, bytes);
    const damaged = await inspect(stream);
    expect(damaged.segments[0].damage?.reason).toBe('header checksum mismatch');
    expect(damaged.spans).toBe(0);
    // Garbage after the last record is reported the same way, where it starts.
    bytes[9] ^= 0xff;
    await writeFile(segment, bytes);
    await appendFile(segment, Buffer.from('not a record at all, and long enough to be more than a header'));
    expect((await inspect(stream)).segments[0].damage?.reason).toBe('bad magic');

    // Damage in a record followed by valid records: the next start quarantines it; inspect counts it.
    bytes[40] ^= 0xff; // inside the first record's payload
    await writeFile(segment, bytes);
    const again = await startDaemon(config(down), { dir: daemon.dir });
    await again.stop();
    const repaired = await inspect(stream);
    expect(repaired.quarantined).toBe(1);
    expect(repaired.segments[0].damage).toBeUndefined();
    expect(repaired.spans).toBe(8);
  });

  it('a directory without a stream, and usage problems', async () => {
    const empty = await tempDir();
    const r = await runCli(['inspect', empty]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`tracehop inspect: no stream in ${empty}\n`);
    expect((await runCli(['inspect'])).code).toBe(2);
  });
});
