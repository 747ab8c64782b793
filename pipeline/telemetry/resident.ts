// What the resident set is made of, from /proc/self/status (Linux). The resident set size alone mixes
// two different things: anonymous memory (the V8 heap, Buffers, the allocator: private to the process,
// what a memory budget should count) and file-backed pages (mostly the Node executable's own code and
// read-only data: ~35 MiB for an idle `node`, ~50 MiB for the daemon at 10k spans/s; docs/operating.md,
// "Memory and V8 flags"). File pages are shared with the page cache and other Node processes and the
// kernel can drop them under pressure, so an operator sizing memory needs the two apart.
import { readFileSync } from 'node:fs';

export interface ResidentMemory {
  /** RssAnon: private anonymous pages (heap, Buffers, malloc, thread stacks). */
  anon: number;
  /** RssFile: file-backed pages (the executable, shared libraries). */
  file: number;
  /** RssShmem: shared memory pages. */
  shmem: number;
}

const FIELDS: Record<string, keyof ResidentMemory> = { RssAnon: 'anon', RssFile: 'file', RssShmem: 'shmem' };

/** The split in bytes from the text of a /proc/PID/status file; undefined when a field is missing (not Linux, an old kernel). */
export function parseResidentMemory(status: string): ResidentMemory | undefined {
  const found: Partial<ResidentMemory> = {};
  for (const line of status.split('\n')) {
    const colon = line.indexOf(':');
    const key = FIELDS[line.slice(0, colon)];
    if (colon < 0 || key === undefined) continue;
    // "RssAnon:	   40764 kB": the kernel always reports these in kB.
    found[key] = Number.parseInt(line.slice(colon + 1), 10) * 1024;
  }
  return found.anon !== undefined && found.file !== undefined && found.shmem !== undefined ? found as ResidentMemory : undefined;
}

/** This process's split now, or undefined where /proc/self/status does not exist or lacks it. */
export function readResidentMemory(path = '/proc/self/status'): ResidentMemory | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  return parseResidentMemory(text);
}
