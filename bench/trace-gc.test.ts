import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { GcTally, gcPauseMs } from './trace-gc.ts';

const scavenge = '[29673:0x20d45000]       26 ms: Scavenge 4.9 (6.0) -> 4.5 (7.0) MB, pooled: 0 MB, 1.46 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure; ';
const markCompact = '[29786:0xce0b000]      531 ms: Mark-Compact 176.6 (239.9) -> 149.3 (278.0) MB, pooled: 0 MB, 86.46 / 0.00 ms  (+ 40.8 ms in 56 steps since start of marking, biggest step 7.9 ms, walltime since start of marking 244 ms) (average mu = 0.810, current mu = 0.810) allocation failure; GC in old space requested';

describe('--trace-gc lines', () => {
  it('reads the pause of scavenges and mark-compacts, and skips other lines', () => {
    expect(gcPauseMs(scavenge)).toBe(1.46);
    expect(gcPauseMs(markCompact)).toBe(86.46);
    expect(gcPauseMs('{"msg":"tracehop started"}')).toBeUndefined();
  });

  it('an event line whose pause cannot be read is an error, not 0 ms', () => {
    const changed = '[1:0x1]  26 ms: Scavenge 4.9 (6.0) -> 4.5 (7.0) MB, 1.46 ms';
    expect(() => gcPauseMs(changed)).toThrow(/cannot read the pause/);
    const tally = new GcTally();
    tally.add(scavenge);
    tally.add(changed);
    expect(tally.events).toBe(1);
    expect(() => tally.check()).toThrow(/cannot read the pause/);
  });

  it('reads every event line this Node prints', () => {
    // The real format of the running V8, not a remembered one: a forced mark-compact and some scavenges.
    const out = execFileSync(process.execPath, ['--trace-gc', '--expose-gc', '-e', 'let a = []; for (let i = 0; i < 1e6; i++) a.push({ i }); gc();'])
      .toString();
    const tally = new GcTally();
    for (const line of out.split('\n')) tally.add(line);
    tally.check();
    expect(out).toContain('Mark-Compact');
    expect(tally.events).toBeGreaterThan(1);
    expect(tally.pauseMs).toBeGreaterThan(0);
  });
});
