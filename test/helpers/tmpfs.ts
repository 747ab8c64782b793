// A small real tmpfs for disk-full tests. Mounting needs root (as in CI); elsewhere `mounted` is false
// and each test says what it does instead.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Tmpfs {
  /** The mount point (an ordinary empty directory when not mounted). */
  dir: string;
  mounted: boolean;
  /** Unmounts (when mounted) and removes the directory. */
  remove(): void;
}

export function mountTmpfs(prefix: string, size = '1m'): Tmpfs {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let mounted = false;
  if (process.getuid?.() === 0) {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
      mounted = true;
    } catch {
      mounted = false;
    }
  }
  return {
    dir,
    mounted,
    remove() {
      if (mounted) execFileSync('umount', [dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
