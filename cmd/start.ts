// The tracehop CLI once main.ts found the Node version enough. `tracehop` (run) first replaces itself
// with a Node started with its V8 flags (v8-flags.ts), before the rest of the CLI is even loaded, so
// nothing is loaded twice; every other command runs as it is.
import { parseArgs } from './args.ts';
import { reexecArgv } from './v8-flags.ts';
import { createLogger } from '../pipeline/log.ts';

const argv = process.argv.slice(2);
if (parseArgs(argv).kind === 'run') {
  const next = reexecArgv(process);
  if (next) {
    try {
      // Same pid, same stdio, same environment: signals, exit codes and supervisors see no difference.
      process.execve!(next[0], next, process.env);
    } catch (err) {
      // Cannot replace the process (e.g. a sandbox refuses execve): run with V8's defaults.
      createLogger().warn('running with V8\'s default young-generation size: cannot re-execute with the V8 flag', { err });
    }
  }
}
const { cli } = await import('./cli.ts');
cli(argv);
