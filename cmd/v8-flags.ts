// The V8 settings the daemon runs with. V8 reads them when it starts (v8.setFlagsFromString afterwards
// changes neither heap sizes nor code already compiled), so the daemon replaces itself, same pid, with
// a Node started with them, before it loads anything else.
//
// The first flag is a 16 MiB young-generation semi-space (decision 0280). V8 sizes its young generation
// for throughput: on a 64-bit machine a semi-space may grow to 32 MiB and the new space then holds tens
// of MiB resident, a large share of tracehop's RSS under steady load. 16 MiB keeps less of it at no CPU
// cost worth naming; smaller ones (8, 4, 2) cost 15% and more CPU in scavenges, and do not even save
// memory at a steady 10k spans/s: collected more often than spans die, the young generation promotes
// them and the old one grows by ~40 MiB (160 MiB resident at 8 and at 4 against 124 at 16). Neither
// V8's paged young generation (--minor-ms) nor --single-threaded-gc did better there (docs/operating.md,
// "Memory and V8 flags"). The bench's steady-10k scenario measures it in every run (a row with V8's own
// sizing beside the default).
//
// The second turns off V8's allocation-site pretenuring. Spans stay alive across young-generation
// collections by design (a batch waits for its exporter's acknowledgement, the stream keeps them for
// retries), and V8 then decides their allocation sites make long-lived objects and allocates every later
// span straight into the old generation, which fills and is mark-compacted again and again: on the Kafka
// row 14-23 full collections per 10 s run against 1 for the file exporter, a fifth of the daemon's CPU. Off,
// the bench measured otlp-proto-kafka 9.12 -> 6.68 CPU-s per million spans (RSS 242 -> 158 MiB), otlp-proto
// 6.56 -> 5.18, otlp-proto-llm 35.3 -> 29.7, durable 10.7 -> 9.0, and no row worse beyond noise (decision
// 0280, docs/performance.md).
//
// A flag the operator set (NODE_OPTIONS or the node command line) keeps the operator's value: that one
// is not added. `NODE_OPTIONS=--max-semi-space-size=0` gives V8's own young-generation sizing back.

/** What `tracehop` (run) adds to Node's own flags. */
export const V8_FLAGS: readonly string[] = ['--max-semi-space-size=16', '--no-allocation-site-pretenuring'];

/** A flag's name: what is before `=`, with V8's `_` spelling read as `-` and a boolean's `--no-` dropped
 *  (so an operator's `--allocation-site-pretenuring` keeps pretenuring on). */
function flagName(arg: string): string {
  const eq = arg.indexOf('=');
  const name = (eq < 0 ? arg : arg.slice(0, eq)).replaceAll('_', '-');
  return name.startsWith('--no-') ? `--${name.slice(5)}` : name;
}

/** The flags of V8_FLAGS the operator did not already choose, on the node command line or in NODE_OPTIONS. */
export function flagsToAdd(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const chosen = new Set([...execArgv, ...(nodeOptions ?? '').split(/\s+/)].map(flagName));
  return V8_FLAGS.filter((flag) => !chosen.has(flagName(flag)));
}

/**
 * The argv to re-execute this process with (argv[0] is node), or undefined when it should run as it
 * is: every flag is already there (the operator's, or this process is the re-executed one), or the
 * platform cannot replace a process (process.execve: POSIX, Node >= 23.11).
 */
export function reexecArgv(process: Pick<NodeJS.Process, 'execArgv' | 'argv' | 'env' | 'platform' | 'execve' | 'execPath'>): string[] | undefined {
  if (typeof process.execve !== 'function' || process.platform === 'win32') return undefined;
  const add = flagsToAdd(process.execArgv, process.env.NODE_OPTIONS);
  if (add.length === 0) return undefined;
  return [process.execPath, ...process.execArgv, ...add, ...process.argv.slice(1)];
}
