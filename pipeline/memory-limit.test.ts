import { describe, expect, it } from 'vitest';
import { createMemoryLimiter } from './memory-limit.ts';

const MiB = 1024 * 1024;

describe('memory limiter', () => {
  it('refuses with a message and Retry-After while over the limit, and admits again once under', () => {
    let used = 100 * MiB;
    let clock = 0;
    const limiter = createMemoryLimiter({ limitMib: 512, retryAfterMs: 2000, measure: () => used, now: () => clock });
    expect(limiter.check()).toBeUndefined();
    used = 600 * MiB;
    clock += 100;
    const refusal = limiter.check();
    expect(refusal?.retryAfterMs).toBe(2000);
    expect(refusal?.message).toMatch(/600 MiB.*memory_limit_mib 512/);
    used = 300 * MiB;
    clock += 100;
    expect(limiter.check()).toBeUndefined();
  });

  it('over the limit, collects garbage and measures again before refusing: dead objects do not lock clients out', () => {
    let used = 600 * MiB;
    let live = 100 * MiB;
    let clock = 0;
    let collections = 0;
    const collect = () => {
      collections++;
      used = live;
    };
    const limiter = createMemoryLimiter({ limitMib: 512, measure: () => used, now: () => clock, collect, collectIntervalMs: 1000 });
    // A burst was delivered: 600 MiB counted, 100 live. Admitted after one collection.
    expect(limiter.check()).toBeUndefined();
    expect(collections).toBe(1);
    // Really over: the collection frees nothing and the request is refused.
    used = 700 * MiB;
    live = 700 * MiB;
    clock += 1000;
    expect(limiter.check()?.message).toMatch(/700 MiB/);
    expect(collections).toBe(2);
    // Under a real overload it collects at most once per interval, refusing on the samples between.
    clock += 100;
    expect(limiter.check()).toBeDefined();
    clock += 100;
    expect(limiter.check()).toBeDefined();
    expect(collections).toBe(2);
    clock += 800;
    live = 200 * MiB;
    expect(limiter.check()).toBeUndefined();
    expect(collections).toBe(3);
  });

  it('the default collection frees what is no longer referenced', () => {
    let garbage: Array<{ i: number }> | undefined = Array.from({ length: 500_000 }, (_, i) => ({ i }));
    const measure = () => process.memoryUsage().heapUsed;
    const withGarbage = measure();
    garbage = undefined;
    let after = 0;
    // A limit below the heap in use makes the limiter collect; the second sample is what is live.
    const limiter = createMemoryLimiter({ limitMib: 1, measure: () => (after = measure()) });
    limiter.check();
    expect(garbage).toBeUndefined();
    expect(after).toBeLessThan(withGarbage - 10 * MiB);
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
    expect(createMemoryLimiter({ limitMib: 1 }).check()).toBeDefined();
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
});
