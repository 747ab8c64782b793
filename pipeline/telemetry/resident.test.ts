// The resident set by kind: parsed from a /proc status text, read from this process's own, and served
// as a gauge among the process metrics.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ServiceMetrics } from './metrics.ts';
import { parseResidentMemory, readResidentMemory } from './resident.ts';

const STATUS = `Name:\tnode
VmHWM:\t  126000 kB
VmRSS:\t   93340 kB
RssAnon:\t   40764 kB
RssFile:\t   52576 kB
RssShmem:\t       0 kB
Threads:\t11
`;

const linux = existsSync('/proc/self/status');

describe('resident memory by kind', () => {
  it('reads RssAnon, RssFile and RssShmem in bytes', () => {
    expect(parseResidentMemory(STATUS)).toEqual({ anon: 40764 * 1024, file: 52576 * 1024, shmem: 0 });
  });

  it('is undefined when the status text lacks a field (an old kernel, another system)', () => {
    expect(parseResidentMemory(STATUS.replace(/RssFile.*\n/, ''))).toBeUndefined();
    expect(readResidentMemory('/nonexistent/status')).toBeUndefined();
  });

  it.runIf(linux)('adds up to about the resident set of this process', () => {
    const resident = readResidentMemory()!;
    const rss = process.memoryUsage.rss();
    expect(resident.anon).toBeGreaterThan(0);
    expect(resident.file).toBeGreaterThan(0);
    // Read a moment apart: within 16 MiB of each other.
    expect(Math.abs(resident.anon + resident.file + resident.shmem - rss)).toBeLessThan(16 * 1024 * 1024);
  });

  it.runIf(linux)('is served as tracehop_process_resident_memory_by_kind_bytes{kind}', async () => {
    const metrics = new ServiceMetrics();
    metrics.collectProcessMetrics();
    const lines = (await metrics.text()).split('\n').filter((l) => l.startsWith('tracehop_process_resident_memory_by_kind_bytes'));
    expect(lines.map((l) => l.slice(0, l.lastIndexOf(' ')))).toEqual([
      'tracehop_process_resident_memory_by_kind_bytes{kind="anon"}',
      'tracehop_process_resident_memory_by_kind_bytes{kind="file"}',
      'tracehop_process_resident_memory_by_kind_bytes{kind="shmem"}',
    ]);
    expect(Number(lines[0].slice(lines[0].lastIndexOf(' ') + 1))).toBeGreaterThan(0);
  });
});
