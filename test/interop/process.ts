// A child process a test starts and must always stop: output kept (the tail goes into failure
// messages), readiness awaited by a predicate, and stop = SIGTERM, then SIGKILL if it hangs.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export interface Peer {
  readonly name: string;
  readonly child: ChildProcess;
  /** stdout and stderr interleaved, most recent last (bounded). */
  output(): string;
  /** Resolves when `ready()` holds; rejects when the process exits first or `timeoutMs` passes. */
  waitUntil(ready: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void>;
  /** SIGTERM and wait for exit (SIGKILL after `graceMs`); resolves with the exit code or signal. */
  stop(graceMs?: number): Promise<number | string | null>;
}

const KEEP_CHARS = 64 * 1024;

export function startPeer(name: string, command: string, args: string[], options: SpawnOptions = {}): Peer {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let buffer = '';
  const keep = (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    if (buffer.length > KEEP_CHARS * 2) buffer = buffer.slice(-KEEP_CHARS);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: number | string | null | undefined;
  const exit = new Promise<number | string | null>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = code ?? signal;
      resolve(exited);
    });
    child.once('error', (error) => {
      buffer += `\n[spawn error] ${error.message}\n`;
      exited = 'spawn-error';
      resolve(exited);
    });
  });
  const tail = () => buffer.slice(-4000);

  return {
    name,
    child,
    output: () => buffer,
    async waitUntil(ready, timeoutMs, what) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (exited !== undefined) {
          throw new Error(`${name} exited (${String(exited)}) before ${what}; output:\n${tail()}`);
        }
        if (await ready()) return;
        if (Date.now() > deadline) throw new Error(`${name}: no ${what} within ${timeoutMs} ms; output:\n${tail()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop(graceMs = 15_000) {
      if (exited !== undefined) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        return await exit;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
