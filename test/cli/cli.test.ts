// The CLI as a user runs it: the built dist/cmd/main.js in a child process.
import { createServer } from 'node:net';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCli, startDaemon, tempDir } from '../helpers/daemon.ts';

const pipeline = (exporterYaml: string, receiverYaml = 'http:\n    endpoint: 127.0.0.1:0') => `receivers:
  ${receiverYaml}
processors:
  batch:
    timeout: 5s
exporters:
  ${exporterYaml}
service:
  shutdown_timeout: 20s
  pipelines:
    traces:
      receivers: [http]
      processors: [batch]
      exporters: [file]
`;

function flatSpans(n: number, offset = 0) {
  return {
    spans: Array.from({ length: n }, (_, i) => ({
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
      span_id: (offset + i + 1).toString(16).padStart(16, '0'),
      span_name: `s${offset + i}`,
      start_time: 1776363498,
      end_time: 1776363499,
    })),
  };
}

describe('tracehop CLI', () => {
  it('prints its version and help', async () => {
    const v = await runCli(['--version']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^tracehop \d+\.\d+\.\d+\n$/);
    const h = await runCli(['--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain('tracehop validate [--config FILE]');
    const bad = await runCli(['--bogus']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown argument "--bogus"');
  });

  it('validate: exit 0 for the shipped examples', async () => {
    for (const example of ['examples/sidecar.yaml', 'examples/gateway.yaml']) {
      const r = await runCli(['validate', '--config', example], { TRACEHOP_API_KEY: 'k1' });
      expect({ example, code: r.code, stderr: r.stderr }).toEqual({ example, code: 0, stderr: '' });
    }
  });

  it('validate: exit 0 for the config in the Kubernetes example (its keys file made up here)', async () => {
    const docs = parseAllDocuments(await readFile('examples/deploy/kubernetes.yaml', 'utf8')).map((d) => d.toJS() as { kind: string; data?: Record<string, string> });
    const configMap = docs.find((d) => d.kind === 'ConfigMap');
    const dir = await tempDir();
    const keys = join(dir, 'keys.yaml');
    await writeFile(keys, '- {key: k1, project: p}\n');
    const config = join(dir, 'tracehop.yaml');
    await writeFile(config, configMap!.data!['tracehop.yaml'].replace('/etc/tracehop/keys/keys.yaml', keys));
    const r = await runCli(['validate', '--config', config]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  });

  it('validate: an API key left empty by an unset variable is refused', async () => {
    const r = await runCli(['validate', '--config', 'examples/gateway.yaml'], { TRACEHOP_API_KEY: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('examples/gateway.yaml:6:15 extensions.api_keys.keys.0.key: must NOT have fewer than 1 characters\n');
  });

  it('validate: exit 2 with every problem as FILE:LINE:COL path: message', async () => {
    const dir = await tempDir();
    const file = join(dir, 'bad.yaml');
    await writeFile(file, `receivers:
  http:
    endpoint: 127.0.0.1:4319
    max_body: 5
exporters:
  file:
    path: out.jsonl
    flush_interval: often
service:
  pipelines:
    traces:
      receivers: [http]
      exporters: [file, kafka]
`);
    const r = await runCli(['validate', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `${file}:4:5 receivers.http.max_body: unknown key`,
      `${file}:8:21 exporters.file.flush_interval: must be a duration such as 200ms, 5s or 1m (got "often")`,
      `${file}:13:25 service.pipelines.traces.exporters.1: "kafka" is not defined under exporters`,
    ]);
  });

  it('validate: a YAML alias bomb is exit 2 with a FILE:LINE:COL problem, not a stack trace', async () => {
    const dir = await tempDir();
    const file = join(dir, 'bomb.yaml');
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill('*' + String.fromCharCode(96 + i)).join(',')}]`);
    }
    await writeFile(file, levels.join('\n') + '\n');
    const r = await runCli(['validate', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1:1 \\(top level\\): cannot read the YAML: `));
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a port in use: one clear line and a non-zero exit', async () => {
    const blocker = createServer();
    await new Promise<void>((res) => blocker.listen(0, '127.0.0.1', res));
    const port = (blocker.address() as { port: number }).port;
    try {
      const dir = await tempDir();
      const err = await startDaemon(pipeline('file:\n    path: out.jsonl', `http:\n    endpoint: 127.0.0.1:${port}`), { dir })
        .catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      const errors = (err as Error).message.split('\n').filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l)).filter((l) => l.level === 'error');
      expect(errors).toHaveLength(1);
      const line = errors[0];
      expect(line.msg).toContain(`127.0.0.1:${port}`);
      expect((err as Error).message).toMatch(/exited with 1/);
    } finally {
      blocker.close();
    }
  });

  it('an unwritable file path: one clear line naming it and a non-zero exit', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'ro'));
    await chmod(join(dir, 'ro'), 0o500);
    // root ignores directory permissions; a path under a regular file fails for everyone.
    await writeFile(join(dir, 'not-a-dir'), '');
    const err = await startDaemon(pipeline('file:\n    path: ./not-a-dir/spans.jsonl'), { dir }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/exited with 1/);
    const line = JSON.parse((err as Error).message.split('\n').find((l) => l.includes('"error"'))!);
    expect(line.msg).toContain('not-a-dir/spans.jsonl');
  });

  it('SIGTERM: stops accepting, delivers everything acknowledged, exits 0', async () => {
    // A 5 s batch timeout: nothing reaches the file before the signal.
    const daemon = await startDaemon(pipeline('file:\n    path: ./spans.jsonl'));
    const url = daemon.url('http');
    let acknowledged = 0;
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${url}/tracing/spans/ingest`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(flatSpans(50, i * 50)),
      });
      expect(res.status).toBe(202);
      acknowledged += ((await res.json()) as { count: number }).count;
    }
    expect(await daemon.stop('SIGTERM')).toBe(0);
    const lines = (await readFile(join(daemon.dir, 'spans.jsonl'), 'utf8')).trim().split('\n');
    expect(acknowledged).toBe(1000);
    expect(new Set(lines.map((l) => JSON.parse(l).span_id)).size).toBe(1000);
    expect(daemon.logs.map((l) => l.msg)).toContain('stopped');
  });

  it('SIGTERM the moment the start-up line is out (as a supervisor may send it) still drains and exits 0', async () => {
    // The start-up line used to be written before the signal handlers existed: a quick enough SIGTERM
    // found Node's default action and killed the process (about one start in three on 2 cores).
    for (let i = 0; i < 10; i++) {
      const daemon = await startDaemon(pipeline('file:\n    path: ./spans.jsonl'));
      expect(await daemon.stop('SIGTERM')).toBe(0);
      expect(daemon.logs.map((l) => l.msg)).toContain('stopped');
    }
  });
});
