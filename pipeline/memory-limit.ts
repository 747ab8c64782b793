// The process-wide memory limiter, in the spirit of the Collector's memory_limiter: a hard limit
// (`service.memory_limit_mib`) and a soft limit below it by `service.memory_spike_limit_mib`. Receivers
// ask it before decoding a body and answer 503 + Retry-After while the process is over, rather than grow
// until the kernel kills it and loses what it had not acknowledged yet.
//
// What it measures: live JavaScript memory, V8 heap used plus memory outside the heap held by JS objects
// (Buffers, ArrayBuffers): that is what decoding requests grows, and what a garbage collection gives
// back. Resident set size is the wrong gauge on its own: the allocator keeps freed pages, so RSS can stay
// above the limit long after the data is gone and the daemon would refuse forever after one burst.
//
// Cost: `check()` runs on every request, so it only compares numbers; the process is sampled at most
// every `sampleIntervalMs`. The sample is V8's heap statistics (used_heap_size + external_memory, the
// very numbers process.memoryUsage() reports as heapUsed + external), without memoryUsage()'s read of
// the resident set size from /proc, which cost about ten times as much (measured, docs/performance.md, round 0260).
//
// The two limits. A sample counts garbage too: V8 collects the old generation only when it allocates, so
// after a burst an idle daemon kept counting objects that were already dead and refused every request
// until something else made V8 collect (111 s in one test). So:
// - at or under the soft limit: admit;
// - between the soft and the hard limit: collect, then measure again, and refuse only if what is live is
//   still over the soft limit. Refusals stop as soon as live memory is under it;
// - over the hard limit: refuse at once on the sample (no request waits for a collection there), and
//   collect right after, so that the next sample tells live memory from garbage.
// A collection of a large heap takes tens of milliseconds, so the limiter forces one at most every
// `collectIntervalMs`: under a real overload it refuses on the samples it has.
//
// `poll()` does the same check without a request; the daemon calls it every second, as the Collector's
// limiter checks on a ticker, so that an idle daemon gives its memory back after a burst and its state
// (and the log line saying it accepts again) does not wait for the next client.
//
// Giving memory back to the system when idle. V8 shrinks an idle heap by itself (its memory reducer), but
// keeps the pages it frees pooled for reuse: after a minute at 10k spans/s the young generation went
// from 32 MiB to 2 MiB and the resident set did not move (121 MiB, 69 MiB of it anonymous). Only V8's
// last-resort collection hands them back to the system. So once no request has arrived for
// `idleReleaseMs`, poll() runs one, and not again before the next request: once per idle period, never
// under load. What it costs: V8 starts the next burst with a small young generation and some code to
// compile again, measured at about 0.25 CPU-seconds once (a 20 s window at 10k spans/s after an idle
// period: 2.05-2.41 CPU-s against 1.86-2.12 without), hence a wait of tens of seconds rather than one:
// a sender that pauses briefly between bursts does not pay it every time.

import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from './log.ts';

const MiB = 1024 * 1024;

/** The soft limit's distance below the hard limit when `service.memory_spike_limit_mib` is not set: a fifth of it (the Collector's default). */
export function defaultSpikeLimitMib(limitMib: number): number {
  return Math.floor(limitMib / 5);
}

export interface MemoryLimiterOptions {
  /** The hard limit in MiB (`service.memory_limit_mib`, default 512). */
  limitMib: number;
  /** The soft limit is `limitMib - spikeLimitMib` (`service.memory_spike_limit_mib`); default defaultSpikeLimitMib(limitMib). */
  spikeLimitMib?: number;
  /** How long a refused client should wait (Retry-After). Default 1000. */
  retryAfterMs?: number;
  /** Longest age of a sample. Default 100. */
  sampleIntervalMs?: number;
  /** Live bytes now; tests inject it. Default: V8 heap used + external memory (memoryUsage's heapUsed + external). */
  measure?: () => number;
  /** Milliseconds clock; tests inject it. Default performance.now. */
  now?: () => number;
  /** A full garbage collection; tests inject it. Default: V8's (see fullCollection). */
  collect?: () => void;
  /** Least time between two collections the limiter forces. Default 1000. */
  collectIntervalMs?: number;
  /** Runs a collection after the refusal that asked for it has been answered; tests inject it. Default setImmediate. */
  defer?: (run: () => void) => void;
  /** Where refusing and accepting again are logged (once per change, not per request). */
  logger?: Logger;
  /** After this long without a request, poll() gives unneeded memory back to the system, once per idle period (0: never). Default 30000. */
  idleReleaseMs?: number;
  /** Gives back what V8 keeps pooled; tests inject it. Default: V8's last-resort collection (see lastResortCollection). */
  release?: () => void;
}

export interface Refusal {
  message: string;
  retryAfterMs: number;
}

export interface MemoryLimiter {
  /** undefined: go ahead; otherwise the refusal to answer with (503 + Retry-After). */
  check(): Refusal | undefined;
  /** The same check without a request (the daemon's ticker): never refuses anyone, may collect. */
  poll(): void;
  /** The last sample, in bytes (for logs and self-telemetry). */
  lastSample(): number;
  /** The soft limit in bytes. */
  readonly softLimit: number;
  /** The hard limit in bytes. */
  readonly hardLimit: number;
}

function liveBytes(): number {
  const heap = getHeapStatistics();
  return heap.used_heap_size + heap.external_memory;
}

/**
 * V8's full collection. Node exposes it only with --expose-gc; setting the flag at run time and reading
 * `gc` in a fresh context gives the function without changing how the daemon is started. Then a young
 * generation collection: V8 keeps counting the Buffers the full collection freed as external memory
 * until its next collection of any kind (measured after a 200,000-span request: 370 MiB external after
 * the full one, 5 MiB after the next), and a young one costs far less than a second full one under an
 * overload whose live heap is large.
 */
function fullCollection(): () => void {
  const gc = exposedGc();
  return () => {
    gc();
    gc({ type: 'minor' });
  };
}

/** V8's last-resort collection: full collections until nothing more is freed, then the freed pages unmapped. */
function lastResortCollection(): () => void {
  const gc = exposedGc();
  return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

type Gc = (options?: { type: 'major' | 'minor'; execution?: 'sync'; flavor?: 'last-resort' }) => void;

/** V8's `gc`, which Node exposes only with --expose-gc: set at run time, read in a fresh context. */
function exposedGc(): Gc {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as Gc;
}

const toMib = (bytes: number) => Math.round(bytes / MiB);

export function createMemoryLimiter(options: MemoryLimiterOptions): MemoryLimiter {
  const spikeMib = options.spikeLimitMib ?? defaultSpikeLimitMib(options.limitMib);
  const hard = options.limitMib * MiB;
  const soft = (options.limitMib - spikeMib) * MiB;
  const retryAfterMs = options.retryAfterMs ?? 1000;
  const interval = options.sampleIntervalMs ?? 100;
  const measure = options.measure ?? liveBytes;
  const now = options.now ?? (() => performance.now());
  const collectInterval = options.collectIntervalMs ?? 1000;
  const defer = options.defer ?? ((run: () => void) => void setImmediate(run));
  const logger = options.logger;
  let collect = options.collect;
  let collectedAt = -Infinity;
  let collectPending = false;
  let sampledAt = -Infinity;
  let sample = 0;
  let refusal: Refusal | undefined;
  const idleReleaseMs = options.idleReleaseMs ?? 30_000;
  let release = options.release;
  /** When check() last ran (a request arrived), and whether this idle period's memory was given back. */
  let requestAt = now();
  let released = false;

  const overHard = (bytes: number): Refusal => ({
    message: `tracehop is over its memory limit (${toMib(bytes)} MiB in use, service.memory_limit_mib ${options.limitMib})`,
    retryAfterMs,
  });
  const overSoft = (bytes: number): Refusal => ({
    message: `tracehop is over its soft memory limit (${toMib(bytes)} MiB in use, soft limit ${options.limitMib - spikeMib} MiB = service.memory_limit_mib ${options.limitMib} - service.memory_spike_limit_mib ${spikeMib})`,
    retryAfterMs,
  });

  /** Sets the answer for the requests to come, logging when it changes between refusing and admitting. */
  const decide = (next: Refusal | undefined) => {
    if (next !== undefined && refusal === undefined) {
      logger?.warn('memory limit reached: refusing requests', { live_mib: toMib(sample), soft_limit_mib: toMib(soft), hard_limit_mib: options.limitMib });
    } else if (next === undefined && refusal !== undefined) {
      logger?.info('memory under the soft limit again: accepting requests', { live_mib: toMib(sample), soft_limit_mib: toMib(soft) });
    }
    refusal = next;
  };

  /** Runs `collection`, measures what is live after it and decides on that. */
  const measureAfter = (collection: () => void) => {
    collection();
    sample = measure();
    sampledAt = now();
    decide(sample > soft ? overSoft(sample) : undefined);
  };

  /** Collects, measures what is live and decides on that. */
  const collectAndMeasure = () => {
    const before = sample;
    collectedAt = now();
    collect ??= fullCollection();
    measureAfter(collect);
    logger?.debug('memory limiter collected garbage', { before_mib: toMib(before), live_mib: toMib(sample) });
  };

  /** The collection a refusal over the hard limit asked for, once that refusal has been answered. */
  const deferredCollection = () => {
    collectPending = false;
    if (now() - collectedAt >= collectInterval) collectAndMeasure();
  };

  /** A fresh sample and what follows from it; `request`: a client waits for the answer. */
  const evaluate = (t: number, request: boolean) => {
    sampledAt = t;
    sample = measure();
    if (sample <= soft) return decide(undefined);
    if (collectPending || t - collectedAt < collectInterval) return decide(sample > hard ? overHard(sample) : overSoft(sample));
    if (sample > hard && request) {
      decide(overHard(sample));
      collectPending = true;
      defer(deferredCollection);
      return;
    }
    collectAndMeasure();
  };

  return {
    check() {
      const t = now();
      requestAt = t;
      released = false;
      if (t - sampledAt >= interval) evaluate(t, true);
      return refusal;
    },
    poll() {
      const t = now();
      evaluate(t, false);
      if (idleReleaseMs > 0 && !released && t - requestAt >= idleReleaseMs) {
        released = true;
        const before = process.memoryUsage.rss();
        release ??= lastResortCollection();
        measureAfter(release);
        logger?.debug('memory limiter gave idle memory back', { rss_before_mib: toMib(before), rss_mib: toMib(process.memoryUsage.rss()) });
      }
    },
    lastSample: () => sample,
    softLimit: soft,
    hardLimit: hard,
  };
}
