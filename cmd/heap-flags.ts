// The V8 heap settings the daemon runs with (docs/decisions/0280-young-generation-size.md).
//
// V8 sizes its young generation for throughput: on a 64-bit machine a semi-space may grow to 32 MiB and
// the new space then holds about 100 MiB resident, most of tracehop's RSS under steady load. A 16 MiB
// semi-space halves that and, measured at 10k spans/s and at full load, costs no CPU worth naming;
// smaller ones (8, 4, 2) cost 15% and more CPU in scavenges. Heap sizes are fixed when V8 starts
// (v8.setFlagsFromString afterwards changes nothing), so the daemon replaces itself, same pid, with a
// Node started with the flag, before it loads anything else. An operator who sets the flag (NODE_OPTIONS
// or the node command line) keeps their value: tracehop then does not re-execute. A gateway that wants
// V8's own sizing back sets NODE_OPTIONS=--max-semi-space-size=0 (0 is V8's "choose for me").

/** What `tracehop` (run) adds to Node's own flags. */
export const HEAP_FLAGS: readonly string[] = ['--max-semi-space-size=16'];

const FLAG_NAMES = HEAP_FLAGS.map((f) => f.slice(0, f.indexOf('=')));

/** True when the operator already chose one of these flags, on the node command line or in NODE_OPTIONS. */
export function heapFlagsChosen(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  // V8 accepts `_` for `-` in flag names.
  return given.some((arg) => FLAG_NAMES.some((name) => arg.replaceAll('_', '-').startsWith(name)));
}

/**
 * The argv to re-execute this process with (argv[0] is node), or undefined when it should run as it
 * is: the flags are already chosen, or the platform cannot replace a process (process.execve: POSIX,
 * Node >= 23.11).
 */
export function reexecArgv(process: Pick<NodeJS.Process, 'execArgv' | 'argv' | 'env' | 'platform' | 'execve' | 'execPath'>): string[] | undefined {
  if (typeof process.execve !== 'function' || process.platform === 'win32') return undefined;
  if (heapFlagsChosen(process.execArgv, process.env.NODE_OPTIONS)) return undefined;
  return [process.execPath, ...process.execArgv, ...HEAP_FLAGS, ...process.argv.slice(1)];
}
