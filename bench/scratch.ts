// The bench's scratch space: request bodies, each daemon's config and output, the broker's data. All of it
// lives under one directory per run, removed when the run ends; the large parts (a daemon's output,
// the broker's log) are removed as soon as their scenario is done, since a full run writes gigabytes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let root: string | undefined;

function runDir(): string {
  if (root === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'tracehop-bench-'));
    root = dir;
    // Also on Ctrl-C: run.ts turns SIGINT into process.exit.
    process.once('exit', () => removeScratch(dir));
  }
  return root;
}

/** A new directory under this run's scratch directory. */
export function scratchDir(prefix: string): string {
  return mkdtempSync(join(runDir(), prefix));
}

export function removeScratch(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
