// A record whose delivery kills the process every time is dead-lettered after a few restarts, instead of
// the daemon crash-looping on it; everything else is delivered.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.ts';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'poison-child.ts');

function run(dir: string, out: string, mode: string): number | null {
  const r = spawnSync(process.execPath, ['--no-warnings', CHILD, dir, out, mode], { encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 70) throw new Error(`child failed (${r.status}): ${r.stderr}`);
  return r.status;
}

describe('crash-loop protection', () => {
  it('dead-letters only the record that kills the process, after maxAttempts deaths', () => {
    const out = tempDir();
    const dir = path.join(out, 'stream');
    expect(run(dir, out, 'append')).toBe(0);
    const codes: Array<number | null> = [];
    for (let i = 0; i < 10 && codes.at(-1) !== 0; i++) codes.push(run(dir, out, 'consume'));
    expect(codes.at(-1)).toBe(0);
    expect(codes.filter((c) => c === 70).length).toBeGreaterThanOrEqual(3);
    const dead = fs.readFileSync(path.join(out, 'dead-letters.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(dead.map((d) => d.name)).toEqual(['r3', 'poison']);
    expect(dead[0]).toMatchObject({ consumerId: 'exporter', reason: expect.stringMatching(/died 3 times/) });
    const delivered = fs.readFileSync(path.join(out, 'delivered.txt'), 'utf8').trim().split('\n');
    expect([...new Set(delivered)].sort()).toEqual(['r1', 'r2', 'r4', 'r5']);
  });
});
