// A read-only look at a disk stream directory (`tracehop inspect`): its segments and the records in them,
// each reader's cursor and backlog, records a process died delivering, the quarantine file and who holds
// the lock. Safe beside a running daemon: it takes no lock and writes nothing, and reads only record
// headers (28 bytes each, whose own checksum is checked), never payloads. What it reports of the newest
// segment may be a moment old; a damaged header ends the walk of its segment, and the next start of the
// daemon repairs it (recover.ts).
import { open, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { HEADER_BYTES, isMagic, MAX_PAYLOAD_BYTES } from '../../../codec/disk/record.ts';
import { crc32 } from 'node:zlib';
import type { Logger } from '../../log.ts';
import { loadCursors } from './cursors.ts';
import { nodeIo } from './io.ts';
import { processRuns } from './lock.ts';
import { parseSegmentName } from './segment.ts';

export interface SegmentReport {
  name: string;
  bytes: number;
  records: number;
  spans: number;
  firstSeq?: number;
  lastSeq?: number;
  /** Where the walk stopped before the end of the file, and why. */
  damage?: { offset: number; reason: string };
}

export interface ReaderReport {
  id: string;
  /** Seq of the last record it committed; undefined: none yet (it starts from the oldest record). */
  committed?: number;
  backlog: { records: number; spans: number; bytes: number };
  /** Set when a process started delivering from this seq and did not finish (died, or still running). */
  delivering?: { from: number; attempts: number };
}

export interface StreamReport {
  directory: string;
  segments: SegmentReport[];
  records: number;
  spans: number;
  bytes: number;
  readers: ReaderReport[];
  /** Entries in quarantine.jsonl (damaged ranges moved out of segments). */
  quarantined: number;
  /** Why cursors.json was not taken (torn, unreadable): the daemon would start every reader from the
   *  oldest retained record, and `readers` is empty as it would be. */
  cursorsProblem?: string;
  /** The pid in the lock file and whether it runs; undefined when there is no lock file. */
  lock?: { pid: number; running: boolean };
}

/** Records of one segment, found by walking headers: seq, spans and end offset of each. */
interface Walk {
  seqs: number[];
  spans: number[];
  ends: number[];
  damage?: { offset: number; reason: string };
}

/** The segment's size and its records, from one open handle. */
async function walkSegment(file: string): Promise<{ size: number; walk: Walk }> {
  const walk: Walk = { seqs: [], spans: [], ends: [] };
  const handle = await open(file, 'r');
  const header = Buffer.alloc(HEADER_BYTES);
  let size = 0;
  try {
    size = (await handle.stat()).size;
    let p = 0;
    while (p < size) {
      const { bytesRead } = await handle.read(header, 0, HEADER_BYTES, p);
      if (bytesRead < HEADER_BYTES) { walk.damage = { offset: p, reason: 'incomplete header (a write in progress, or torn)' }; break; }
      if (!isMagic(header.readUInt32LE(0))) { walk.damage = { offset: p, reason: 'bad magic' }; break; }
      if (crc32(header.subarray(0, 24)) !== header.readUInt32LE(24)) { walk.damage = { offset: p, reason: 'header checksum mismatch' }; break; }
      const length = header.readUInt32LE(4);
      const end = p + HEADER_BYTES + length;
      if (length > MAX_PAYLOAD_BYTES || end > size) { walk.damage = { offset: p, reason: 'record runs past the end of the file' }; break; }
      walk.seqs.push(header.readUInt32LE(8) + header.readUInt32LE(12) * 0x1_0000_0000);
      walk.spans.push(header.readUInt32LE(16));
      walk.ends.push(end);
      p = end;
    }
  } finally {
    await handle.close();
  }
  return { size, walk };
}

/** A logger that keeps the warning loadCursors gives for a file it does not take, to report it. */
function problemLogger(report: StreamReport): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (msg, fields) => {
      const error = fields?.error instanceof Error ? `: ${fields.error.message}` : '';
      report.cursorsProblem = `${msg}${error}`;
    },
    error: (msg) => {
      report.cursorsProblem = msg;
    },
    child: () => logger,
  };
  return logger;
}

/** True when `directory` holds a stream (a segment or a cursor file). */
export async function isStreamDirectory(directory: string): Promise<boolean> {
  const names = await readdir(directory);
  return names.some((n) => n === 'cursors.json' || parseSegmentName(n) !== undefined);
}

export async function inspectStream(directory: string): Promise<StreamReport> {
  const names = (await readdir(directory)).filter((n) => parseSegmentName(n) !== undefined).sort();
  const report: StreamReport = { directory, segments: [], records: 0, spans: 0, bytes: 0, readers: [], quarantined: 0 };
  const walks: Walk[] = [];
  for (const name of names) {
    const { size, walk } = await walkSegment(path.join(directory, name));
    walks.push(walk);
    const n = walk.seqs.length;
    const segment: SegmentReport = { name, bytes: size, records: n, spans: walk.spans.reduce((a, b) => a + b, 0) };
    if (n > 0) { segment.firstSeq = walk.seqs[0]; segment.lastSeq = walk.seqs[n - 1]; }
    if (walk.damage) segment.damage = walk.damage;
    report.segments.push(segment);
    report.records += n;
    report.spans += segment.spans;
    report.bytes += size;
  }
  // Read as the daemon reads it at start (checksum, entry checks), so what is shown is what it would use.
  const cursors = await loadCursors(nodeIo, directory, problemLogger(report));
  const ids = new Set([...cursors.cursors.keys(), ...cursors.delivering.keys()]);
  for (const id of [...ids].sort()) {
    const reader: ReaderReport = { id, backlog: { records: 0, spans: 0, bytes: 0 } };
    const committed = cursors.cursors.get(id);
    if (committed !== undefined) reader.committed = committed;
    for (let s = 0; s < walks.length; s++) {
      const w = walks[s];
      for (let i = 0; i < w.seqs.length; i++) {
        if (reader.committed !== undefined && w.seqs[i] <= reader.committed) continue;
        reader.backlog.records++;
        reader.backlog.spans += w.spans[i];
        reader.backlog.bytes += w.ends[i] - (i > 0 ? w.ends[i - 1] : 0);
      }
    }
    const delivering = cursors.delivering.get(id);
    if (delivering) reader.delivering = { from: delivering.from, attempts: delivering.attempts };
    report.readers.push(reader);
  }
  const quarantine = await readFile(path.join(directory, 'quarantine.jsonl'), 'utf8').catch(() => '');
  report.quarantined = quarantine.split('\n').filter((l) => l.trim() !== '').length;
  const lock = await readFile(path.join(directory, 'lock'), 'utf8').catch(() => undefined);
  if (lock !== undefined) {
    const pid = Number.parseInt(lock, 10);
    if (pid > 0) report.lock = { pid, running: processRuns(pid) };
  }
  return report;
}
