// Names and retention of rotated files: `<name>-<UTC YYYY-MM-DDThh-mm-ss.mmm><ext>` beside the live file
// (span-record.md). The timestamp sorts as text in time order, which retention relies on.
import { readdir, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';

/** `spans.jsonl` at 2026-04-16T18:18:18.123Z -> `spans-2026-04-16T18-18-18.123.jsonl` (same directory). */
export function backupPath(path: string, atMs: number): string {
  const ext = extname(path);
  const name = basename(path, ext);
  const stamp = new Date(atMs).toISOString().slice(0, 23).replaceAll(':', '-');
  return join(dirname(path), `${name}-${stamp}${ext}`);
}

/** The rotated files of `path`, oldest first. */
export async function listBackups(path: string): Promise<string[]> {
  const ext = extname(path);
  const pattern = new RegExp(
    '^' + escapeRegExp(basename(path, ext)) + '-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{3}' + escapeRegExp(ext) + '$',
  );
  const dir = dirname(path);
  const names = (await readdir(dir)).filter((n) => pattern.test(n)).sort();
  return names.map((n) => join(dir, n));
}

/** Deletes the oldest rotated files beyond `keep` (0 keeps all); returns the deleted paths. */
export async function pruneBackups(path: string, keep: number): Promise<string[]> {
  if (keep === 0) return [];
  const backups = await listBackups(path);
  const doomed = backups.slice(0, Math.max(0, backups.length - keep));
  for (const file of doomed) await unlink(file);
  return doomed;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
