// Every test file's temporary files (its own, and those of the daemons, brokers and scripts it starts,
// which inherit TMPDIR) go under one directory, removed when the file is done. Before this, each run of
// the suite left ~100-150 MB of data directories behind in the system temp directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const previous = process.env.TMPDIR;
const dir = mkdtempSync(join(tmpdir(), 'tracehop-test-file-'));
process.env.TMPDIR = dir;

// Hooks of a setup file run after the file's own (vitest's default 'stack' order), so every daemon the
// file started has been stopped by then.
afterAll(() => {
  if (previous === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previous;
  rmSync(dir, { recursive: true, force: true });
});
