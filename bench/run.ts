// `npm run bench [-- --scenario NAME] [-- --duration 30s]`: each scenario runs tracehop (and, where it has
// one, the OpenTelemetry Collector with the same load) as a separate process, drives it from a separate
// load-generator process, and prints a markdown table of ratios measured in this one run.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDuration } from '../pipeline/schema.ts';
import { scenarios, type Scenario } from './scenarios.ts';
import { pinning } from './proc.ts';
import { formatReport } from './report.ts';
import { REPO } from './paths.ts';

interface Options {
  only?: string[];
  durationMs: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { durationMs: 10_000 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--scenario') (options.only ??= []).push(...argv[++i].split(','));
    else if (argv[i] === '--duration') {
      const ms = parseDuration(argv[++i]);
      if (!ms) throw new Error(`--duration takes a duration such as 30s (got ${argv[i]})`);
      options.durationMs = ms;
    } else if (argv[i] === '--help') {
      process.stdout.write(`npm run bench [-- --scenario NAME[,NAME]] [-- --duration 30s]\nscenarios: ${scenarios.map((s) => s.name).join(', ')}\n`);
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
      return s;
    })
    : scenarios;
  const pin = pinning();
  const context = { durationMs: options.durationMs, pin, collector: collectorBinary };
  const results = [];
  for (const scenario of selected) {
    process.stderr.write(`bench: ${scenario.name}...\n`);
    results.push(...(await scenario.run(context)));
  }
  const report = formatReport(results, { pinned: pin.available, durationMs: options.durationMs });
  process.stdout.write(report + '\n');
  const dir = join(REPO, 'bench/results');
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().replaceAll(':', '-')}.json`);
  writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), pinned: pin.available, durationMs: options.durationMs, results }, null, 2));
  process.stderr.write(`bench: results written to ${file}\n`);
}

// Keep a stray child from outliving the run.
process.on('SIGINT', () => process.exit(130));
main().catch((err) => {
  process.stderr.write(`bench: ${err?.stack ?? err}\n`);
  process.exit(1);
});
