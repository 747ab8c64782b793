// The tracehop CLI: the commands, their exit codes and the error output (main.ts is the entry point).
// Each command's module is imported when that command runs: the daemon does not hold the client
// commands' code, nor the client commands the daemon's.
import { DEFAULT_CONFIG, DEFAULT_CONFIG_NAME } from '../config/default.ts';
import { loadConfigFile, loadConfigText } from '../config/load.ts';
import { ConfigError, formatProblem } from '../config/problem.ts';
import { parseArgs, USAGE } from './args.ts';
import { builtinRegistry } from './components.ts';
import { version } from './version.ts';

/**
 * A client command that could not reach or read what it needed (an unreadable file, a daemon that does not
 * answer): one line naming the command and the cause, not a stack; exit 1.
 */
function failed(command: string, err: unknown): number {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  process.stderr.write(`tracehop ${command}: ${(err as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}\n`);
  return 1;
}

async function main(argv: string[]): Promise<number> {
  const command = parseArgs(argv, process.env);
  switch (command.kind) {
    case 'help':
      process.stdout.write(USAGE + '\n');
      return 0;
    case 'version':
      process.stdout.write(`tracehop ${version()}\n`);
      return 0;
    case 'usage-error':
      process.stderr.write(`tracehop: ${command.message}\n${USAGE}\n`);
      return 2;
    case 'print-default-config':
      process.stdout.write(DEFAULT_CONFIG);
      return 0;
    case 'validate':
      // Without --config: the built-in default, with its environment variables and the --set overrides.
      if (command.config === undefined) loadConfigText(DEFAULT_CONFIG, DEFAULT_CONFIG_NAME, builtinRegistry(), process.env, command.sets);
      else loadConfigFile(command.config, builtinRegistry(), process.env, command.sets);
      process.stdout.write(`${command.config ?? DEFAULT_CONFIG_NAME}: ok\n`);
      return 0;
    case 'replay': {
      try {
        const { replay, replaySummary } = await import('./replay.ts');
        const count = await replay(command);
        process.stdout.write(replaySummary(command.file, count));
        return count.accepted === count.sent && count.unreadable === 0 ? 0 : 1;
      } catch (err) {
        return failed('replay', err);
      }
    }
    case 'tap': {
      const interrupted = new AbortController();
      process.once('SIGINT', () => interrupted.abort());
      try {
        const { tap } = await import('./tap.ts');
        return await tap(command, process.stdout, process.stderr, interrupted.signal);
      } catch (err) {
        return failed('tap', err);
      }
    }
    case 'traces': {
      const { listTraces } = await import('./traces.ts');
      return listTraces(command, process.stdout, process.stderr).catch((err: unknown) => failed('traces', err));
    }
    case 'trace': {
      const { showTrace } = await import('./traces.ts');
      return showTrace(command, process.stdout, process.stderr).catch((err: unknown) => failed('trace', err));
    }
    case 'inspect': {
      const { formatReport, inspectDirectory } = await import('./inspect.ts');
      const reports = await inspectDirectory(command.directory).catch((err: Error) => err);
      if (reports instanceof Error) return failed('inspect', reports);
      if (reports.length === 0) {
        process.stderr.write(`tracehop inspect: no stream in ${command.directory}\n`);
        return 1;
      }
      process.stdout.write(command.json ? JSON.stringify(reports, null, 2) + '\n' : reports.map(formatReport).join(''));
      return 0;
    }
    case 'run': {
      const { runDaemon } = await import('./run.ts');
      return runDaemon(command.config, command.sets);
    }
  }
}

/** Runs one command and exits the process with its code. */
export function cli(argv: string[]): void {
  main(argv).then(
    (code) => {
      process.exitCode = code;
      // Receivers and timers are closed by now; exit promptly even if a library left a handle open.
      setImmediate(() => process.exit(code));
    },
    (err: unknown) => {
      if (err instanceof ConfigError) {
        for (const p of err.problems) process.stderr.write(formatProblem(p) + '\n');
        process.exit(2);
      }
      process.stderr.write(`tracehop: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
