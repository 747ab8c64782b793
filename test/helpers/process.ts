// Runs a program to completion and collects what it wrote: the CLI, Python helpers, an SDK script.
import { spawn } from 'node:child_process';

export interface Finished {
  /** The exit code; -1 when the program could not be started (its error is in `stderr`). */
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Added to this process's environment. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Written to the program's stdin, which is then closed. */
  input?: string;
}

export function runProcess(command: string, args: string[], options: RunOptions = {}): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', (error) => resolve({ code: -1, stdout, stderr: `${stderr}\n${error.message}` }));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}
