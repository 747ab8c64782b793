// One process per stream directory: two daemons appending to the same segments would corrupt them.
// The lock file holds the owner's pid; a lock left by a process that no longer runs (kill -9) is taken over.
import path from 'node:path';
import { StartupError } from '../../errors.ts';
import type { DiskIo } from './io.ts';

/** Directories locked by this process: a pid check cannot tell two streams of one process apart. */
const heldHere = new Set<string>();

/** True when a process with this pid runs (EPERM: it runs as another user). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function lockDirectory(io: DiskIo, directory: string): Promise<() => Promise<void>> {
  const file = path.join(path.resolve(directory), 'lock');
  if (heldHere.has(file)) throw new StartupError(`stream directory ${directory} is already open in this process`);
  let owner: number | undefined;
  try {
    owner = Number.parseInt((await io.readFile(file)).toString('utf8'), 10);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new StartupError(`cannot read ${file}: ${(err as Error).message}`);
  }
  if (owner !== undefined && owner > 0 && owner !== process.pid && processRuns(owner)) {
    throw new StartupError(`stream directory ${directory} is in use by process ${owner} (lock file ${file})`);
  }
  try {
    await io.writeFile(file, `${process.pid}\n`);
  } catch (err) {
    throw new StartupError(`cannot write ${file}: ${(err as Error).message}`);
  }
  heldHere.add(file);
  return async () => {
    heldHere.delete(file);
    await io.unlink(file).catch(() => undefined);
  };
}
