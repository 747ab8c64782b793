// Two checkouts of this repository as daemons, in pairs of interleaved runs on the otlp-proto-llm load
// (LLM-call spans, OTLP/HTTP protobuf, namespace + batch, memory stream, file exporter): CPU seconds per
// million accepted spans of each run, the garbage collector's pauses per span (from --trace-gc) and the
// paired ratio. For a change whose gain is a few percent of the daemon on a host shared with other work,
// where single runs vary by +-15% or more: each pair runs both checkouts back to back (the order
// alternating), so load that comes and goes weighs on both sides of most pairs, and the geometric mean of
// the pairs' ratios says more than either side's median.
// Not part of `npm run bench`:
//   node bench/daemon-ab.ts <pairs> <seconds per run> <checkout A> <checkout B> [llm | llm-non-ascii]
// A checkout is a directory with this repository's sources and node_modules (e.g. `git worktree add`, or
// `git archive` of a commit with a link to node_modules); it runs from its sources (cmd/main.ts). The
// bodies: the bench's otlp-proto-llm ones (`llm`, the default) or the same with non-ASCII texts. The
// daemon is pinned to CPU 1 and the load generator to CPU 0 when taskset exists, as in the bench.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { otlpLlmNonAsciiProtoBody, otlpLlmProtoBody } from './bodies.ts';
import type { LoadResult, LoadSpec } from './loadgen.ts';
import { LOADGEN } from './paths.ts';
import { cpuByProcess, pinning } from './proc.ts';
import { removeScratch, scratchDir } from './scratch.ts';

const [pairsArg, secondsArg, a, b, bodies = 'llm'] = process.argv.slice(2);
if (a === undefined || b === undefined || (bodies !== 'llm' && bodies !== 'llm-non-ascii')) {
  console.error('usage: node bench/daemon-ab.ts <pairs> <seconds per run> <checkout A> <checkout B> [llm | llm-non-ascii]');
  process.exit(2);
}
const pairs = Number(pairsArg);
const seconds = Number(secondsArg);
const checkouts = [resolve(a), resolve(b)];
const makeBody = bodies === 'llm' ? otlpLlmProtoBody : otlpLlmNonAsciiProtoBody;
const pin = pinning();

const bodiesDir = scratchDir('ab-bodies-');
const bodyFiles = Array.from({ length: 4 }, (_, i) => {
  const file = join(bodiesDir, `body-${i}.bin`);
  writeFileSync(file, makeBody(i));
  return file;
});

function config(dir: string): string {
  return `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:0
processors:
  batch: {}
exporters:
  file:
    path: ${dir}/spans.jsonl
    rotation: {max_megabytes: 100, max_backups: 2}
storage: memory
service:
  workers: 1
  telemetry:
    metrics:
      address: 127.0.0.1:0
  pipelines:
    traces:
      receivers: [otlp]
      processors: [namespace, batch]
      exporters: [file]
`;
}

interface Run {
  cpuPerMillion: number;
  spansPerSecond: number;
  /** Scavenges and mark-compacts per thousand spans. */
  gcPerThousand: number;
  /** Microseconds of GC pause (main thread) per span. */
  gcPauseUs: number;
}

/** One `--trace-gc` line's pause in ms (`..., 1.23 / 0.00 ms ...`), or undefined for other lines. */
function gcPauseMs(line: string): number | undefined {
  if (!line.includes('Scavenge') && !line.includes('Mark-Compact')) return undefined;
  const m = /MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms/.exec(line);
  return m === null ? 0 : Number(m[1]);
}

async function runOnce(checkout: string): Promise<Run> {
  const dir = scratchDir('ab-daemon-');
  writeFileSync(join(dir, 'tracehop.yaml'), config(dir));
  const [bin, ...args] = [...pin.prefix(1), process.execPath, '--trace-gc', join(checkout, 'cmd/main.ts'), '--config', join(dir, 'tracehop.yaml')];
  const daemon = spawn(bin, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let gcEvents = 0;
  let gcMs = 0;
  let gcText = '';
  daemon.stdout!.on('data', (d: Buffer) => {
    gcText += d.toString();
    const lines = gcText.split('\n');
    gcText = lines.pop()!;
    for (const line of lines) {
      const ms = gcPauseMs(line);
      if (ms === undefined) continue;
      gcEvents++;
      gcMs += ms;
    }
  });
  const endpoints = await new Promise<Record<string, string[]>>((resolveStarted, reject) => {
    let text = '';
    daemon.stderr!.on('data', (d: Buffer) => {
      text += d;
      const line = text.split('\n').find((l) => l.includes('"tracehop started"'));
      if (line) resolveStarted((JSON.parse(line) as { endpoints: Record<string, string[]> }).endpoints);
    });
    daemon.once('exit', (code) => reject(new Error(`tracehop exited with ${code}:\n${text}`)));
  });
  daemon.stderr!.resume();
  const spec: LoadSpec = {
    url: `${endpoints.otlp[0]}/v1/traces`, headers: { 'content-type': 'application/x-protobuf' }, bodyFiles,
    spansPerRequest: 100, concurrency: 8, durationMs: seconds * 1000, warmupMs: 3000,
  };
  const [genBin, ...genArgs] = [...pin.prefix(0), process.execPath, LOADGEN, JSON.stringify(spec)];
  const gen = spawn(genBin, genArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
  let cpuStart = new Map<number, number>();
  let gcEventsStart = 0;
  let gcMsStart = 0;
  let out = '';
  const result = await new Promise<LoadResult>((resolveDone, reject) => {
    gen.stdout!.on('data', (d: Buffer) => {
      out += d;
      for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        if (line === 'measuring') {
          cpuStart = cpuByProcess(daemon.pid!);
          gcEventsStart = gcEvents;
          gcMsStart = gcMs;
        } else if (line.startsWith('{')) resolveDone(JSON.parse(line) as LoadResult);
      }
    });
    gen.once('exit', (code) => code !== 0 && reject(new Error(`load generator exited with ${code}`)));
  });
  // The memory stream's backlog (a few requests) is exported within this.
  await new Promise((r) => setTimeout(r, 500));
  let cpu = 0;
  for (const [pid, s] of cpuByProcess(daemon.pid!)) cpu += s - (cpuStart.get(pid) ?? 0);
  const events = gcEvents - gcEventsStart;
  const pauseMs = gcMs - gcMsStart;
  daemon.kill('SIGTERM');
  await new Promise((r) => daemon.once('exit', r));
  removeScratch(dir);
  const spans = result.spansAccepted;
  if (result.non2xx > 0 || result.errors > 0) console.log(`  ${checkout}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { cpuPerMillion: cpu / (spans / 1e6), spansPerSecond: result.spansPerSecond, gcPerThousand: events / (spans / 1000), gcPauseUs: (pauseMs * 1000) / spans };
}

function median(values: number[]): number {
  const s = [...values].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

const runs: Run[][] = [[], []];
for (let p = 0; p < pairs; p++) {
  const order = p % 2 === 0 ? [0, 1] : [1, 0];
  const line: string[] = [];
  for (const i of order) {
    const r = await runOnce(checkouts[i]);
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
removeScratch(bodiesDir);
