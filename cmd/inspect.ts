// `tracehop inspect DIR`: what a disk stream holds, read-only (pipeline/stream/disk/inspect.ts). DIR is
// one stream (`<storage.directory>/<pipeline>`, or one worker's shard of it, `<pipeline>/<worker>`), a
// pipeline's directory of shards, or the storage directory, whose streams are all shown.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { inspectStream, isStreamDirectory, type StreamReport } from '../pipeline/stream/disk/inspect.ts';

/** How far below DIR streams are looked for: `<pipeline>/<worker>/` under the storage directory. */
const DEPTH = 2;

export async function inspectDirectory(directory: string, depth = DEPTH): Promise<StreamReport[]> {
  if (await isStreamDirectory(directory)) return [await inspectStream(directory)];
  if (depth === 0) return [];
  const reports: StreamReport[] = [];
  // Numeric order for worker shards (2 before 10), by name otherwise.
  const entries = (await readdir(directory, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
  for (const entry of entries) {
    if (entry.isDirectory()) reports.push(...await inspectDirectory(path.join(directory, entry.name), depth - 1));
  }
  return reports;
}

function seqRange(first: number | undefined, last: number | undefined): string {
  return first === undefined ? 'no records' : first === last ? `seq ${first}` : `seq ${first}..${last}`;
}

/** The text `tracehop inspect` prints for each stream. */
export function formatReport(r: StreamReport): string {
  const first = r.segments.find((s) => s.firstSeq !== undefined)?.firstSeq;
  const last = r.segments.findLast((s) => s.lastSeq !== undefined)?.lastSeq;
  let text = `${r.directory}: ${r.segments.length} segments, ${r.bytes} bytes, ${r.records} records, ${r.spans} spans (${seqRange(first, last)})\n`;
  text += r.lock === undefined ? '  lock: none (no daemon has it open)\n'
    : `  lock: process ${r.lock.pid} (${r.lock.running ? 'running' : 'not running: left by a process that died'})\n`;
  for (const s of r.segments) {
    text += `  segment ${s.name}: ${s.bytes} bytes, ${s.records} records, ${s.spans} spans (${seqRange(s.firstSeq, s.lastSeq)})`;
    text += s.damage ? `; stops at byte ${s.damage.offset}: ${s.damage.reason}\n` : '\n';
  }
  if (r.cursorsProblem) text += `  cursors.json not taken: ${r.cursorsProblem}\n`;
  if (r.readers.length === 0) text += '  readers: none recorded (every exporter starts from the oldest record)\n';
  for (const reader of r.readers) {
    const at = reader.committed === undefined ? 'nothing committed' : `committed seq ${reader.committed}`;
    const b = reader.backlog;
    text += `  reader ${reader.id}: ${at}, backlog ${b.records} records, ${b.spans} spans, ${b.bytes} bytes`;
    if (reader.delivering) {
      text += `; delivery from seq ${reader.delivering.from} started ${reader.delivering.attempts} times without finishing`;
    }
    text += '\n';
  }
  text += `  quarantined ranges: ${r.quarantined}${r.quarantined > 0 ? ` (${path.join(r.directory, 'quarantine.jsonl')})` : ''}\n`;
  return text;
}
