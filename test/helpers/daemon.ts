// Runs the built daemon (`dist/cmd/main.js`, made by `npm run build` before the suite) as a child process
// with a temporary config, the way a user runs it.
import { spawn, type ChildProcess } from 'node:child_process';
import { runProcess, type Finished } from './process.ts';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = join(REPO, 'dist/cmd/main.js');

export interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

export interface Daemon {
  child: ChildProcess;
  dir: string;
  /** Listening addresses by receiver id, from the start-up line (`{http: ['http://127.0.0.1:PORT']}`). */
  endpoints: Record<string, string[]>;
  /** The first address of a receiver. */
  url(receiverId: string): string;
  logs: LogLine[];
  stdout: () => string;
  /** SIGTERM and wait; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Resolves with the exit code once the process ends. */
  exited: Promise<number | null>;
}

export async function tempDir(prefix = 'tracehop-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Runs the CLI to completion (validate, --version...). */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, cwd = REPO): Promise<Finished> {
  return runProcess(process.execPath, [CLI, ...args], { env, cwd });
}

/**
 * Writes `config` (YAML) into a fresh temp dir (or `dir`), starts the daemon there (relative paths
 * resolve inside it) and waits for its start-up log line. Rejects with the daemon's stderr if it exits
 * first. `command`: the program and its leading arguments (default: this Node running dist's CLI).
 */
export async function startDaemon(config: string, options: { dir?: string; args?: string[]; env?: NodeJS.ProcessEnv; command?: string[] } = {}): Promise<Daemon> {
  const dir = options.dir ?? (await tempDir());
  const configPath = join(dir, 'tracehop.yaml');
  await writeFile(configPath, config);
  // The metrics on a free port unless the test says otherwise: every daemon of the suite serves them,
  // and none collides with another (or with a daemon the machine runs) on the default 8888.
  const args = options.args ?? ['--config', configPath, '--set', 'service.telemetry.metrics.address=127.0.0.1:0'];
  const [program, ...leading] = options.command ?? [process.execPath, CLI];
  const child = spawn(program, [...leading, ...args], {
    cwd: dir,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  let stdout = '';
  let stderrText = '';
  let pendingErr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  const started = new Promise<LogLine>((res, rej) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderrText += d;
      pendingErr += d;
      let nl;
      while ((nl = pendingErr.indexOf('\n')) >= 0) {
        const line = pendingErr.slice(0, nl);
        pendingErr = pendingErr.slice(nl + 1);
        try {
          const parsed = JSON.parse(line) as LogLine;
          logs.push(parsed);
          if (parsed.msg === 'tracehop started') res(parsed);
        } catch {
          // a non-JSON line (a crash trace): kept in stderrText
        }
      }
    });
    void exited.then((code) => rej(new Error(`daemon exited with ${code} before starting:\n${stderrText}`)));
  });
  const first = await started;
  return {
    child,
    dir,
    endpoints: first.endpoints as Record<string, string[]>,
    url(receiverId: string) {
      const list = (first.endpoints as Record<string, string[]>)[receiverId];
      if (!list?.length) throw new Error(`receiver ${receiverId} has no endpoint in ${JSON.stringify(first.endpoints)}`);
      return list[0];
    },
    logs,
    stdout: () => stdout,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
