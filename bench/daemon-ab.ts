// Two checkouts of this repository as daemons, in pairs of interleaved runs on the otlp-proto-llm load
// (LLM-call spans, OTLP/HTTP protobuf, namespace + batch, memory stream, file exporter): CPU seconds per
// million accepted spans of each run, the garbage collector's pauses per span (from --trace-gc) and the
// paired ratio. For a change whose gain is a few percent of the daemon on a host shared with other work,
// where single runs vary by +-15% or more: each pair runs both checkouts back to back (the order
// alternating), so load that comes and goes weighs on both sides of most pairs, and the geometric mean of
// the pairs' ratios says more than either side's median.
// Not part of `npm run bench`:
//   node_modules/.bin/node bench/daemon-ab.ts <pairs> <seconds per run> <checkout A> <checkout B> [llm | llm-non-ascii]
// A checkout is a directory with this repository's sources and node_modules (e.g. `git worktree add`, or
// `git archive` of a commit with a link to node_modules); it runs from its sources (cmd/main.ts). The
// bodies: the bench's otlp-proto-llm ones (`llm`, the default) or the same with non-ASCII texts.
// Each run is the bench's own: startTracehop (daemon pinned to CPU 1 when taskset exists), measure (load
// generator on CPU 0, CPU counted from the window's start until the daemon is idle), withTarget.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { otlpLlmNonAsciiProtoBody, otlpLlmProtoBody } from './bodies.ts';
import { pinning } from './proc.ts';
import { median } from './report.ts';
import { fileExporter, load, tracehopConfig, withTarget, writeBodies } from './scenarios.ts';
import { measure, startTracehop, type Pin } from './target.ts';
import { GcTally } from './trace-gc.ts';

const USAGE = 'usage: node_modules/.bin/node bench/daemon-ab.ts <pairs> <seconds per run> <checkout A> <checkout B> [llm | llm-non-ascii]';
/** Every run warms up this long before its window opens, however short the window: the bench's own
 *  (shorter for runs under 9 s) would measure 4 s runs of two builds while V8 is still optimising. */
const WARMUP_MS = 3000;

interface Options {
  pairs: number;
  seconds: number;
  checkouts: [string, string];
  makeBody: (i: number) => Buffer;
}

function usage(reason: string): never {
  console.error(`daemon-ab: ${reason}\n${USAGE}`);
  process.exit(2);
}

function parseArgs(argv: string[]): Options {
  if (argv.length < 4 || argv.length > 5) usage(`expected 4 or 5 arguments, got ${argv.length}`);
  const [pairsArg, secondsArg, a, b, bodies = 'llm'] = argv;
  const pairs = Number(pairsArg);
  if (!Number.isInteger(pairs) || pairs < 1) usage(`<pairs> must be a whole number, 1 or more (got ${pairsArg})`);
  const seconds = Number(secondsArg);
  if (!Number.isFinite(seconds) || seconds <= 0) usage(`<seconds per run> must be a number above 0 (got ${secondsArg})`);
  const checkouts: [string, string] = [resolve(a), resolve(b)];
  for (const checkout of checkouts) {
    if (!existsSync(join(checkout, 'cmd/main.ts'))) usage(`${checkout} is not a checkout of this repository (no cmd/main.ts)`);
  }
  if (bodies !== 'llm' && bodies !== 'llm-non-ascii') usage(`the bodies are llm or llm-non-ascii (got ${bodies})`);
  return { pairs, seconds, checkouts, makeBody: bodies === 'llm' ? otlpLlmProtoBody : otlpLlmNonAsciiProtoBody };
}

interface Run {
  cpuPerMillion: number;
  spansPerSecond: number;
  /** Scavenges and mark-compacts per thousand spans. */
  gcPerThousand: number;
  /** Microseconds of GC pause (main thread) per span. */
  gcPauseUs: number;
}

async function runOnce(checkout: string, bodyFiles: string[], seconds: number, pin: Pin): Promise<Run> {
  const gc = new GcTally();
  let atStart = { events: 0, pauseMs: 0 };
  const start = startTracehop(`daemon-ab ${checkout}`, tracehopConfig('otlp', fileExporter), pin, {
    cli: join(checkout, 'cmd/main.ts'), nodeArgs: ['--trace-gc'], onStdoutLine: (line) => gc.add(line),
  });
  const { m, events, pauseMs } = await withTarget(start, async (t) => {
    const spec = { ...load(`${t.endpoints.otlp[0]}/v1/traces`, 'application/x-protobuf', bodyFiles, { durationMs: seconds * 1000 }), warmupMs: WARMUP_MS };
    const m = await measure(t, spec, pin, () => (atStart = { events: gc.events, pauseMs: gc.pauseMs }));
    // Read before the daemon stops: its window is measure's, which ends once the daemon is idle.
    return { m, events: gc.events - atStart.events, pauseMs: gc.pauseMs - atStart.pauseMs };
  });
  gc.check();
  const { spansAccepted: spans, non2xx, errors, spansPerSecond } = m.load;
  if (non2xx > 0 || errors > 0) console.log(`  ${checkout}: ${non2xx} non-2xx answers, ${errors} errors`);
  return { cpuPerMillion: m.cpuPerMillion, spansPerSecond, gcPerThousand: events / (spans / 1000), gcPauseUs: (pauseMs * 1000) / spans };
}

async function main(): Promise<void> {
  const { pairs, seconds, checkouts, makeBody } = parseArgs(process.argv.slice(2));
  const pin = pinning();
  const bodyFiles = writeBodies(makeBody);
  const runs: Run[][] = [[], []];
  for (let p = 0; p < pairs; p++) {
    const order = p % 2 === 0 ? [0, 1] : [1, 0];
    const line: string[] = [];
    for (const i of order) {
      const r = await runOnce(checkouts[i], bodyFiles, seconds, pin);
      runs[i].push(r);
      line.push(`${'AB'[i]} ${r.cpuPerMillion.toFixed(2)} CPU-s/M (${Math.round(r.spansPerSecond)} spans/s, GC ${r.gcPerThousand.toFixed(2)}/k spans, ${r.gcPauseUs.toFixed(2)} us/span)`);
    }
    console.log(`pair ${p}: ${line.join('  ')}`);
  }
  checkouts.forEach((checkout, i) => {
    const cpu = runs[i].map((r) => r.cpuPerMillion);
    console.log(`${'AB'[i]} ${checkout}: median ${median(cpu).toFixed(2)}, min ${Math.min(...cpu).toFixed(2)} CPU-s/M; ` +
      `GC ${median(runs[i].map((r) => r.gcPerThousand)).toFixed(2)}/k spans, pauses ${median(runs[i].map((r) => r.gcPauseUs)).toFixed(2)} us/span (medians)`);
  });
  const logRatios = runs[0].map((r, p) => Math.log(runs[1][p].cpuPerMillion / r.cpuPerMillion));
  const lower = logRatios.filter((x) => x < 0).length;
  console.log(`B/A paired geomean ${Math.exp(logRatios.reduce((s, x) => s + x, 0) / pairs).toFixed(3)}, B lower in ${lower} of ${pairs} pairs`);
}

// As in run.ts: Ctrl-C goes through process.exit, so the scratch directory is removed.
process.on('SIGINT', () => process.exit(130));
main().catch((err) => {
  console.error(`daemon-ab: ${err?.stack ?? err}`);
  process.exit(1);
});
