// `tracehop tap ARGS` started as a child process against a daemon's telemetry address, for the tap tests of
// one process (test/cli/tap.test.ts) and of several workers (test/workers/tap.test.ts).
import { spawn } from 'node:child_process';
import { CLI, type Daemon } from './daemon.ts';

export interface RunningTap {
  /** Its exit code once it ended. */
  exited: Promise<number | null>;
  /** What it wrote so far. */
  stdout(): string;
  stderr(): string;
}

/** Starts `tracehop tap ARGS` and resolves once the daemon confirmed the tap (its first line on stderr). */
export async function startTap(daemon: Daemon, args: string[]): Promise<RunningTap> {
  const address = daemon.endpoints.metrics[0].replace('http://', '');
  const child = spawn(process.execPath, [CLI, 'tap', '--address', address, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (d) => {
      stderr += d;
      if (stderr.includes('"watching"')) resolve();
    });
    void exited.then(() => reject(new Error(`tap exited early: ${stderr}`)));
  });
  return { exited, stdout: () => stdout, stderr: () => stderr };
}
