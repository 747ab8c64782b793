// `npm run bench [-- --scenario NAME] [-- --duration 30s] [-- --rounds N] [-- --cpus all]`: each scenario runs tracehop (and, where it has
// one, the OpenTelemetry Collector with the same load) as a separate process, drives it from a separate
// load-generator process, and prints a markdown table of ratios measured in this one run. By default the
// daemon and the load generator are pinned to a CPU each; `--cpus all` lets every process use every CPU
// and runs the scenarios made for that (tracehop with one worker and with one per CPU).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDuration } from '../pipeline/schema.ts';
import { scenarios, type Row, type Scenario } from './scenarios.ts';
import { pinning } from './proc.ts';
import { formatReport } from './report.ts';
import { REPO } from './paths.ts';

interface Options {
  only?: string[];
  durationMs: number;
  rounds: number;
  /** Where the JSON results go. */
  resultsDir: string;
  cpus: 'pinned' | 'all';
}

function parseArgs(argv: string[]): Options {
  const options: Options = { durationMs: 10_000, rounds: 1, resultsDir: join(REPO, 'bench/results'), cpus: 'pinned' };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--scenario') (options.only ??= []).push(...argv[++i].split(','));
    else if (argv[i] === '--duration') {
      const ms = parseDuration(argv[++i]);
      if (!ms) throw new Error(`--duration takes a duration such as 30s (got ${argv[i]})`);
      options.durationMs = ms;
    } else if (argv[i] === '--rounds') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1) throw new Error(`--rounds takes a whole number of rounds, 1 or more (got ${argv[i]})`);
      options.rounds = n;
    } else if (argv[i] === '--cpus') {
      const cpus = argv[++i];
      if (cpus !== 'all' && cpus !== 'pinned') throw new Error(`--cpus takes all or pinned (got ${cpus})`);
      options.cpus = cpus;
    } else if (argv[i] === '--results') options.resultsDir = argv[++i];
    else if (argv[i] === '--help') {
      process.stdout.write(`npm run bench [-- --scenario NAME[,NAME]] [-- --duration 30s] [-- --rounds N] [-- --cpus all|pinned] [-- --results DIR]\nscenarios: ${scenarios.map((s) => s.name).join(', ')}\n`);
      process.exit(0);
    } else throw new Error(`unknown argument ${argv[i]}`);
  }
  return options;
}

/** The Collector binary, built once into the cache by the interop script; undefined when go is missing. */
export function collectorBinary(): string | undefined {
  try {
    return execFileSync('bash', [join(REPO, 'test/interop/collector.sh')], { stdio: ['ignore', 'pipe', 'inherit'] })
      .toString().trim().split('\n').pop();
  } catch {
    return undefined;
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const selected: Scenario[] = options.only
    ? options.only.map((name) => {
      const s = scenarios.find((x) => x.name === name);
      if (!s) throw new Error(`unknown scenario ${name}; known: ${scenarios.map((x) => x.name).join(', ')}`);
      if (s.allCpus && options.cpus !== 'all') throw new Error(`scenario ${name} runs with --cpus all`);
      return s;
    })
    : scenarios.filter((s) => (s.allCpus === true) === (options.cpus === 'all'));
  // --cpus all: nothing pinned, every process may run on every CPU.
  const pin = options.cpus === 'all' ? { available: false, prefix: () => [] } : pinning();
  const context = { durationMs: options.durationMs, pin, collector: collectorBinary, round: 1, cpus: options.cpus };
  // Round after round of every selected scenario, so that a noisy minute lands on one round of each
  // rather than on every run of one scenario.
  const results: Row[][] = [];
  for (let round = 1; round <= options.rounds; round++) {
    context.round = round;
    const rows: Row[] = [];
    for (const scenario of selected) {
      process.stderr.write(`bench: ${scenario.name}${options.rounds > 1 ? ` (round ${round} of ${options.rounds})` : ''}...\n`);
      rows.push(...(await scenario.run(context)));
    }
    results.push(rows);
  }
  const report = formatReport(results, { pinned: pin.available, durationMs: options.durationMs, cpus: options.cpus });
  process.stdout.write(report + '\n');
  const dir = options.resultsDir;
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().replaceAll(':', '-')}.json`);
  writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), pinned: pin.available, cpus: options.cpus, durationMs: options.durationMs, rounds: results }, null, 2));
  process.stderr.write(`bench: results written to ${file}\n`);
}

// Keep a stray child from outliving the run.
process.on('SIGINT', () => process.exit(130));
main().catch((err) => {
  process.stderr.write(`bench: ${err?.stack ?? err}\n`);
  process.exit(1);
});
