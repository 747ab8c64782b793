import { describe, expect, it } from 'vitest';
import { createLogger } from './log.ts';
import { createMemoryLimiter, defaultSpikeLimitMib, type MemoryLimiterOptions } from './memory-limit.ts';

const MiB = 1024 * 1024;

/**
 * A limiter over a fake process: `used` is what a sample sees, `live` what survives a collection; the
 * clock, the collections, the deferred work and the log lines are the test's.
 */
function fakeProcess(options: Partial<MemoryLimiterOptions> = {}) {
  const p = {
    used: 100 * MiB,
    live: 100 * MiB,
    clock: 0,
    collections: 0,
    releases: 0,
    deferred: [] as Array<() => void>,
    logs: [] as Array<{ level: string; msg: string; live_mib?: number }>,
  };
  const limiter = createMemoryLimiter({
    limitMib: 512,
    spikeLimitMib: 112, // soft limit 400 MiB
    measure: () => p.used,
    now: () => p.clock,
    collect: () => {
      p.collections++;
      p.used = p.live;
    },
    defer: (run) => p.deferred.push(run),
    release: () => {
      p.releases++;
      p.used = p.live;
    },
    logger: createLogger({ level: 'debug', write: (line) => p.logs.push(JSON.parse(line)) }),
    ...options,
  });
  const runDeferred = () => p.deferred.splice(0).forEach((run) => run());
  return { p, limiter, runDeferred };
}

describe('memory limiter', () => {
  it('the soft limit defaults to a fifth below the hard one, as the Collector\'s spike_limit_mib', () => {
    expect(defaultSpikeLimitMib(512)).toBe(102);
    const limiter = createMemoryLimiter({ limitMib: 1000, measure: () => 0 });
    expect(limiter.hardLimit).toBe(1000 * MiB);
    expect(limiter.softLimit).toBe(800 * MiB);
  });

  it('at or under the soft limit, admits without collecting', () => {
    const { p, limiter } = fakeProcess();
    expect(limiter.check()).toBeUndefined();
    p.used = p.live = 400 * MiB;
    p.clock += 100;
    expect(limiter.check()).toBeUndefined();
    expect(p.collections).toBe(0);
  });

  it('between the soft and the hard limit, collects and measures again: garbage does not lock clients out', () => {
    const { p, limiter } = fakeProcess();
    // A burst was delivered: 450 MiB counted, 100 live. Admitted after one collection.
    p.used = 450 * MiB;
    expect(limiter.check()).toBeUndefined();
    expect(p.collections).toBe(1);
    expect(limiter.lastSample()).toBe(100 * MiB);
  });

  it('between the limits, refuses only what is still over the soft limit once collected, naming both settings', () => {
    const { p, limiter } = fakeProcess({ retryAfterMs: 2000 });
    p.used = p.live = 450 * MiB;
    const refusal = limiter.check();
    expect(p.collections).toBe(1);
    expect(refusal?.retryAfterMs).toBe(2000);
    expect(refusal?.message).toMatch(/soft memory limit \(450 MiB in use, soft limit 400 MiB = service.memory_limit_mib 512 - service.memory_spike_limit_mib 112\)/);
  });

  it('refusals stop as soon as live memory is under the soft limit: the next sample admits', () => {
    const { p, limiter } = fakeProcess();
    p.used = p.live = 450 * MiB;
    expect(limiter.check()).toBeDefined();
    // The exporters delivered; within the collection interval, the sample alone decides.
    p.used = p.live = 390 * MiB;
    p.clock += 100;
    expect(limiter.check()).toBeUndefined();
    expect(p.collections).toBe(1);
  });

  it('over the hard limit, refuses at once on the sample and collects only after the refusal was answered', () => {
    const { p, limiter, runDeferred } = fakeProcess();
    p.used = 900 * MiB;
    p.live = 100 * MiB;
    const refusal = limiter.check();
    expect(refusal?.message).toMatch(/over its memory limit \(900 MiB in use, service.memory_limit_mib 512\)/);
    expect(p.collections).toBe(0);
    // Requests before the collection ran are refused on the same sample, and ask for no second one.
    p.clock += 100;
    expect(limiter.check()).toBeDefined();
    expect(p.deferred).toHaveLength(1);
    runDeferred();
    expect(p.collections).toBe(1);
    // What is live fits: the very next request is admitted, without waiting for a new sample.
    expect(limiter.check()).toBeUndefined();
  });

  it('over the hard limit with that much live, keeps refusing and collects at most once per interval', () => {
    const { p, limiter, runDeferred } = fakeProcess({ collectIntervalMs: 1000 });
    p.used = p.live = 700 * MiB;
    expect(limiter.check()).toBeDefined();
    runDeferred();
    expect(p.collections).toBe(1);
    for (let i = 0; i < 9; i++) {
      p.clock += 100;
      expect(limiter.check()?.message).toMatch(/700 MiB/);
      runDeferred();
    }
    expect(p.collections).toBe(1);
    p.clock += 100;
    expect(limiter.check()).toBeDefined();
    runDeferred();
    expect(p.collections).toBe(2);
    // Live memory went down between the limits: collected and measured on the spot once allowed.
    p.used = p.live = 300 * MiB;
    p.clock += 1000;
    expect(limiter.check()).toBeUndefined();
  });

  it('between the limits, also collects at most once per interval, refusing on the samples between', () => {
    const { p, limiter } = fakeProcess({ collectIntervalMs: 1000 });
    p.used = p.live = 450 * MiB;
    expect(limiter.check()).toBeDefined();
    p.clock += 500;
    expect(limiter.check()).toBeDefined();
    expect(p.collections).toBe(1);
    p.clock += 500;
    p.used = 450 * MiB;
    p.live = 200 * MiB;
    expect(limiter.check()).toBeUndefined();
    expect(p.collections).toBe(2);
  });

  it('poll() collects without a request, even over the hard limit, so an idle daemon accepts again', () => {
    const { p, limiter, runDeferred } = fakeProcess();
    p.used = 900 * MiB;
    p.live = 700 * MiB;
    expect(limiter.check()).toBeDefined();
    runDeferred();
    // The exporters delivered the burst; nobody sends, the ticker finds the garbage.
    p.used = 900 * MiB;
    p.live = 120 * MiB;
    p.clock += 1000;
    limiter.poll();
    expect(p.collections).toBe(2);
    expect(p.deferred).toHaveLength(0);
    expect(limiter.lastSample()).toBe(120 * MiB);
    expect(limiter.check()).toBeUndefined();
    // Under the soft limit the ticker only samples.
    p.clock += 1000;
    limiter.poll();
    expect(p.collections).toBe(2);
  });

  it('logs refusing and accepting again once per change, not once per request', () => {
    const { p, limiter } = fakeProcess();
    p.used = p.live = 450 * MiB;
    for (let i = 0; i < 5; i++, p.clock += 100) limiter.check();
    p.used = p.live = 300 * MiB;
    for (let i = 0; i < 5; i++, p.clock += 100) limiter.check();
    const changes = p.logs.filter((l) => l.level !== 'debug');
    expect(changes.map((l) => [l.level, l.msg, l.live_mib])).toEqual([
      ['warn', 'memory limit reached: refusing requests', 450],
      ['info', 'memory under the soft limit again: accepting requests', 300],
    ]);
  });

  it('the default collection frees what is no longer referenced', () => {
    let garbage: Array<{ i: number }> | undefined = Array.from({ length: 500_000 }, (_, i) => ({ i }));
    const measure = () => process.memoryUsage().heapUsed;
    const withGarbage = measure();
    garbage = undefined;
    let after = 0;
    // A limit below the heap in use makes the limiter collect; the second sample is what is live.
    const limiter = createMemoryLimiter({ limitMib: 1, spikeLimitMib: 0, measure: () => (after = measure()) });
    limiter.poll();
    expect(garbage).toBeUndefined();
    expect(after).toBeLessThan(withGarbage - 10 * MiB);
  });

  it('the default collection and measure no longer count the Buffers it freed', () => {
    let buffers: Buffer[] | undefined = Array.from({ length: 8 }, () => Buffer.alloc(16 * MiB, 1));
    const limiter = createMemoryLimiter({ limitMib: 1024 * 1024 });
    limiter.check();
    const holding = limiter.lastSample();
    expect(buffers).toHaveLength(8);
    buffers = undefined;
    // Freed ArrayBuffers stay in V8's external count until a second collection; the limiter makes it.
    const collecting = createMemoryLimiter({ limitMib: 2, spikeLimitMib: 1 });
    collecting.poll();
    expect(buffers).toBeUndefined();
    expect(collecting.lastSample()).toBeLessThan(holding - 100 * MiB);
  });

  it('samples at most once per interval, however many requests ask', () => {
    let samples = 0;
    let clock = 0;
    const limiter = createMemoryLimiter({ limitMib: 512, measure: () => (samples++, 10 * MiB), now: () => clock });
    for (let i = 0; i < 10_000; i++) limiter.check();
    expect(samples).toBe(1);
    clock = 99;
    limiter.check();
    expect(samples).toBe(1);
    clock = 100;
    limiter.check();
    expect(samples).toBe(2);
    expect(limiter.lastSample()).toBe(10 * MiB);
  });

  it('measures the real process by default', () => {
    // This process holds far more than 1 MiB of live JS memory and far less than 1 TiB.
    const tight = createMemoryLimiter({ limitMib: 1, spikeLimitMib: 0, defer: () => {} });
    expect(tight.check()).toBeDefined();
    const roomy = createMemoryLimiter({ limitMib: 1024 * 1024 });
    expect(roomy.check()).toBeUndefined();
    expect(roomy.lastSample()).toBeGreaterThan(MiB);
  });

  it('samples what process.memoryUsage() reports as heapUsed + external', () => {
    const limiter = createMemoryLimiter({ limitMib: 1024 * 1024 });
    const before = process.memoryUsage();
    limiter.check();
    const after = process.memoryUsage();
    // The heap moves a little between the calls; the gauge is the same one, not RSS.
    const low = Math.min(before.heapUsed + before.external, after.heapUsed + after.external);
    const high = Math.max(before.heapUsed + before.external, after.heapUsed + after.external);
    expect(limiter.lastSample()).toBeGreaterThan(low * 0.9);
    expect(limiter.lastSample()).toBeLessThan(high * 1.1);
  });

  it('gives idle memory back once no request arrived for idleReleaseMs, once per idle period', () => {
    const { p, limiter } = fakeProcess({ idleReleaseMs: 10_000 });
    p.used = 300 * MiB;
    p.live = 50 * MiB;
    for (let s = 1; s <= 9; s++) {
      p.clock = s * 1000;
      limiter.poll();
    }
    expect(p.releases).toBe(0);
    p.clock = 10_000;
    limiter.poll();
    expect(p.releases).toBe(1);
    expect(limiter.lastSample()).toBe(50 * MiB);
    expect(p.logs.map((l) => l.msg)).toContain('memory limiter gave idle memory back');
    // Still idle: not again.
    for (let s = 11; s <= 60; s++) {
      p.clock = s * 1000;
      limiter.poll();
    }
    expect(p.releases).toBe(1);
    // A request ends the idle period; the next one gives back again.
    expect(limiter.check()).toBeUndefined();
    p.clock = 69_000;
    limiter.poll();
    expect(p.releases).toBe(1);
    p.clock = 70_000;
    limiter.poll();
    expect(p.releases).toBe(2);
  });

  it('never gives back under load (a request every 100 ms), nor with idleReleaseMs 0', () => {
    const { p, limiter } = fakeProcess({ idleReleaseMs: 10_000 });
    for (let t = 0; t <= 60_000; t += 100) {
      p.clock = t;
      limiter.check();
      if (t % 1000 === 0) limiter.poll();
    }
    expect(p.releases).toBe(0);
    const off = fakeProcess({ idleReleaseMs: 0 });
    off.p.clock = 3_600_000;
    off.limiter.poll();
    expect(off.p.releases).toBe(0);
  });

  it('the default release hands the pages V8 keeps after a collection back to the system', () => {
    let clock = 0;
    const limiter = createMemoryLimiter({ limitMib: 1024 * 1024, now: () => clock, idleReleaseMs: 1000 });
    // ~150 MiB of small objects live at once, then dropped: V8 keeps the pages it collects them from.
    let held: Array<{ i: number; s: string; a: number[] }> = [];
    for (let i = 0; i < 1_000_000; i++) held.push({ i, s: `span-${i}`, a: [i, i + 1, i + 2] });
    held = [];
    const before = process.memoryUsage.rss();
    clock = 1000;
    limiter.poll();
    expect(held).toHaveLength(0);
    expect(process.memoryUsage.rss()).toBeLessThan(before - 50 * MiB);
  });
});
