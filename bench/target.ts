// The process under measurement (tracehop or the Collector), started pinned to its own CPU, and one load
// run against it with its CPU seconds and memory read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { LoadResult, LoadSpec } from './loadgen.ts';
import { CLI, LOADGEN } from './paths.ts';
import { cpuByProcess, cpuSeconds, rssMiB } from './proc.ts';
import { scratchDir } from './scratch.ts';

export interface Pin {
  available: boolean;
  prefix(cpu: number): string[];
}

export interface Target {
  name: string;
  pid: number;
  dir: string;
  /** Listening addresses by receiver id (tracehop) or the one OTLP/HTTP base URL (Collector). */
  endpoints: Record<string, string[]>;
  stop(): Promise<void>;
}

export interface Measurement {
  load: LoadResult;
  cpuSeconds: number;
  /** CPU seconds per million accepted spans. */
  cpuPerMillion: number;
  /** Share of one core over the measured window. */
  coreShare: number;
  /** Mean resident set size over the measured window, sampled every RSS_SAMPLE_MS (VmRSS). */
  rssMiB: number;
  /** Highest resident set size of the target's process tree (summed) among the samples of `rssMiB`. */
  peakRssMiB: number;
  /** CPU seconds over the window of each process of the target (first: the one started; then, for
   *  tracehop with workers, each worker): whether the kernel spread the connections over the workers. */
  cpuByProcess?: number[];
  /** The load generator's own CPU seconds per million accepted spans (what it takes from shared CPUs). */
  loadgenCpuPerMillion?: number;
  /** Seconds the target kept working after the load ended (its backlog: accepted spans not yet exported);
   *  that CPU is in `cpuSeconds` and `cpuPerMillion`, not in `coreShare`. */
  drainSeconds?: number;
}

// Both peers are sampled the same way, from /proc, at the same rate over the same window: one reading at
// the end would land anywhere in a garbage collector's sawtooth (V8's or Go's) and favour whichever peer
// happened to have just collected.
const RSS_SAMPLE_MS = 250;

const DAEMON_CPU = 1;
const LOADGEN_CPU = 0;

function spawnPinned(pin: Pin, cpu: number, command: string, args: string[], cwd: string, stdout: 'ignore' | 'pipe' = 'ignore', env = process.env): ChildProcess {
  const [bin, ...rest] = [...pin.prefix(cpu), command, ...args];
  return spawn(bin, rest, { cwd, env, stdio: ['ignore', stdout, 'pipe'] });
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () => new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export interface TracehopOptions {
  /** The daemon's NODE_OPTIONS, for a row that measures an operator's setting. */
  nodeOptions?: string;
  /** The entry point to run, e.g. another checkout's cmd/main.ts (bench/daemon-ab.ts); default: this
   *  repository's CLI. */
  cli?: string;
  /** Arguments to node itself, before the entry point (e.g. --trace-gc). */
  nodeArgs?: string[];
  /** Called with each line the daemon writes to stdout (V8's --trace-gc output goes there; the daemon's
   *  own log goes to stderr). Without it, stdout is discarded. */
  onStdoutLine?: (line: string) => void;
}

export async function startTracehop(name: string, configYaml: string, pin: Pin, options: TracehopOptions = {}): Promise<Target> {
  const dir = scratchDir('tracehop-');
  const config = join(dir, 'tracehop.yaml');
  writeFileSync(config, configYaml.replaceAll('DIR', dir));
  const { nodeOptions, cli = CLI, nodeArgs = [], onStdoutLine } = options;
  const env = nodeOptions ? { ...process.env, NODE_OPTIONS: nodeOptions } : process.env;
  const child = spawnPinned(pin, DAEMON_CPU, process.execPath, [...nodeArgs, cli, '--config', config], dir, onStdoutLine ? 'pipe' : 'ignore', env);
  if (onStdoutLine) {
    let rest = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      const lines = (rest + d).split('\n');
      rest = lines.pop()!;
      for (const line of lines) onStdoutLine(line);
    });
  }
  const endpoints = await new Promise<Record<string, string[]>>((resolve, reject) => {
    let text = '';
    child.stderr!.on('data', (d: Buffer) => {
      text += d;
      const line = text.split('\n').find((l) => l.includes('"tracehop started"'));
      if (line) resolve(JSON.parse(line).endpoints);
    });
    child.once('exit', (code) => reject(new Error(`tracehop exited with ${code}:\n${text}`)));
  });
  child.stderr!.resume();
  return { name, pid: child.pid!, dir, endpoints, stop: stopper(child) };
}

export async function startCollector(name: string, binary: string, configYaml: string, port: number, pin: Pin): Promise<Target> {
  const dir = scratchDir('otelcol-');
  const config = join(dir, 'otelcol.yaml');
  writeFileSync(config, configYaml.replaceAll('DIR', dir).replaceAll('PORT', String(port)));
  const child = spawnPinned(pin, DAEMON_CPU, binary, ['--config', config], dir);
  let text = '';
  child.stderr!.on('data', (d: Buffer) => (text += d));
  const deadline = Date.now() + 30_000;
  while (!(await canConnect(port))) {
    if (child.exitCode !== null) throw new Error(`collector exited with ${child.exitCode}:\n${text}`);
    if (Date.now() > deadline) throw new Error(`collector did not listen on ${port}:\n${text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name, pid: child.pid!, dir, endpoints: { otlp: [`http://127.0.0.1:${port}`] }, stop: stopper(child) };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Runs the load generator in its own pinned process; CPU is read around the measured window only.
 *  `onWindowStart`: called as the window opens, right after the target's CPU is read, for a caller that
 *  counts something of its own over the same window (bench/daemon-ab.ts: GC events). */
export async function measure(target: Target, spec: LoadSpec, pin: Pin, onWindowStart?: () => void): Promise<Measurement> {
  const gen = spawnPinned(pin, LOADGEN_CPU, process.execPath, [LOADGEN, JSON.stringify(spec)], target.dir, 'pipe');
  gen.stderr!.pipe(process.stderr);
  let out = '';
  let cpuStart = new Map<number, number>();
  let loadgenStart = 0;
  let loadgenCpu = 0;
  let windowStart = 0;
  const rssSamples: number[] = [];
  let sampler: NodeJS.Timeout | undefined;
  const result = await new Promise<LoadResult>((resolve, reject) => {
    gen.stdout!.on('data', (d: Buffer) => {
      out += d;
      let nl;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        if (line === 'measuring') {
          cpuStart = cpuByProcess(target.pid);
          loadgenStart = cpuSeconds(gen.pid!);
          windowStart = performance.now();
          sampler = setInterval(() => rssSamples.push(rssMiB(target.pid)), RSS_SAMPLE_MS);
          onWindowStart?.();
        } else if (line.startsWith('{')) {
          // Read before it exits: its /proc entry goes with it.
          try {
            loadgenCpu = cpuSeconds(gen.pid!) - loadgenStart;
          } catch {
            loadgenCpu = Number.NaN;
          }
          resolve(JSON.parse(line) as LoadResult);
        }
      }
    });
    gen.once('exit', (code) => code !== 0 && reject(new Error(`load generator exited with ${code}`)));
  });
  const seconds = (performance.now() - windowStart) / 1000;
  const windowCpu = sum(cpuSince(cpuByProcess(target.pid), cpuStart));
  // A peer that acknowledges before it exports (the Collector's in-memory sending queue) leaves work behind
  // when the load stops; the spans it accepted cost that work too. Keep counting until it is idle.
  const drainStart = performance.now();
  await untilIdle(target.pid);
  const drainSeconds = (performance.now() - drainStart) / 1000;
  const cpuEnd = cpuByProcess(target.pid);
  const byProcess = cpuSince(cpuEnd, cpuStart);
  const cpu = sum(byProcess);
  clearInterval(sampler);
  rssSamples.push(rssMiB(target.pid));
  return {
    load: result,
    cpuSeconds: cpu,
    cpuPerMillion: result.spansAccepted > 0 ? cpu / (result.spansAccepted / 1e6) : Infinity,
    coreShare: windowCpu / seconds,
    rssMiB: sum(rssSamples) / rssSamples.length,
    peakRssMiB: Math.max(...rssSamples),
    ...(byProcess.length > 1 ? { cpuByProcess: byProcess } : {}),
    loadgenCpuPerMillion: result.spansAccepted > 0 ? loadgenCpu / (result.spansAccepted / 1e6) : Number.NaN,
    drainSeconds,
  };
}

/** CPU seconds of each process of a tree since `start` (by pid; a process new since then, such as a
 *  restarted worker, counts from zero). */
function cpuSince(now: Map<number, number>, start: Map<number, number>): number[] {
  return [...now].map(([pid, seconds]) => seconds - (start.get(pid) ?? 0));
}

export function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

const IDLE_STEP_MS = 500;
/** Below this share of a core over a step, the target is idle (its timers and checks, not spans). */
const IDLE_CORE_SHARE = 0.1;
const DRAIN_LIMIT_MS = 120_000;

/** Resolves once the process tree uses less than IDLE_CORE_SHARE of a core over a step (or after DRAIN_LIMIT_MS). */
async function untilIdle(pid: number): Promise<void> {
  const deadline = performance.now() + DRAIN_LIMIT_MS;
  let before = cpuSeconds(pid);
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, IDLE_STEP_MS));
    const now = cpuSeconds(pid);
    if (now - before < IDLE_CORE_SHARE * (IDLE_STEP_MS / 1000)) return;
    before = now;
  }
}
