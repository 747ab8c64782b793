// The process-wide memory limiter (`service.memory_limit_mib`): receivers ask it before decoding a body
// and answer 503 + Retry-After while the process is over the limit, rather than grow until the kernel
// kills it and loses what it had not acknowledged yet.
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
// Over the limit, it collects before it refuses: V8 collects the old generation only when it allocates,
// so after a burst an idle daemon kept counting objects that were already dead, and refused every request
// until something else made V8 collect (111 s in one test). A full collection, then a second sample,
// tells live memory from garbage; refusals stop as soon as live memory is under the limit. A collection
// of a large heap takes tens of milliseconds, so the limiter forces one at most every
// `collectIntervalMs`: under a real overload it refuses on the sample it has.

import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface MemoryLimiterOptions {
  /** The limit in MiB (`service.memory_limit_mib`, default 512). */
  limitMib: number;
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
}

export interface MemoryLimiter {
  /** undefined: go ahead; otherwise the refusal to answer with (503 + Retry-After). */
  check(): { message: string; retryAfterMs: number } | undefined;
  /** The last sample, in bytes (for logs and self-telemetry). */
  lastSample(): number;
}

function liveBytes(): number {
  const heap = getHeapStatistics();
  return heap.used_heap_size + heap.external_memory;
}

/**
 * V8's full collection. Node exposes it only with --expose-gc; setting the flag at run time and reading
 * `gc` in a fresh context gives the function without changing how the daemon is started.
 */
function fullCollection(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

export function createMemoryLimiter(options: MemoryLimiterOptions): MemoryLimiter {
  const limit = options.limitMib * 1024 * 1024;
  const retryAfterMs = options.retryAfterMs ?? 1000;
  const interval = options.sampleIntervalMs ?? 100;
  const measure = options.measure ?? liveBytes;
  const now = options.now ?? (() => performance.now());
  const collectInterval = options.collectIntervalMs ?? 1000;
  let collect = options.collect;
  let collectedAt = -Infinity;
  let sampledAt = -Infinity;
  let sample = 0;
  let refusal: { message: string; retryAfterMs: number } | undefined;

  return {
    check() {
      const t = now();
      if (t - sampledAt >= interval) {
        sampledAt = t;
        sample = measure();
        if (sample > limit && t - collectedAt >= collectInterval) {
          collectedAt = t;
          collect ??= fullCollection();
          collect();
          sample = measure();
        }
        refusal =
          sample > limit
            ? {
                message: `tracehop is over its memory limit (${Math.round(sample / 1048576)} MiB in use, service.memory_limit_mib ${options.limitMib})`,
                retryAfterMs,
              }
            : undefined;
      }
      return refusal;
    },
    lastSample: () => sample,
  };
}
