// Reader cursors, one small JSON file per stream:
//   { "version": 1, "readers": { "<consumer id>": <seq> },
//     "delivering": { "<consumer id>": { "from": <seq>, "attempts": <n> } }, "crc": <n> }
// `readers` holds the last record each reader committed. `delivering` marks records handed out and not
// yet committed, with how many processes started delivering them: a process that dies (crash, OOM)
// leaves the mark behind, so a record that kills the daemon is recognised after a few restarts and
// dead-lettered instead of crash-looping. A clean close clears the marks. Never synced: a cursor that goes
// back after a machine crash only means records are delivered again (at least once), and a missing or
// unreadable file means "start from the oldest retained record".
//
// Written twice per exporter delivery (the mark, then the commit), so each write is one positional write
// over the file in place, padded with spaces to the length written before: a write that replaced the file
// (a temp file, then a rename) cost ~10x the CPU, and on ext4 a rename over a file starts writeback of the
// new one. The first write of a process still replaces the file, so it starts from a whole file. `crc`, a
// CRC-32 of the text before `,"crc"` (followed by `}`), tells a torn in-place write (a machine crash) from
// a whole one; a file without it (written by an earlier release, which replaced the file whole) is taken
// as it is.
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type { Logger } from '../../log.ts';
import { writeAll, type DiskIo } from './io.ts';

const FILE = 'cursors.json';

export interface Delivering {
  from: number;
  attempts: number;
}

export interface CursorState {
  cursors: Map<string, number>;
  delivering: Map<string, Delivering>;
}

export async function loadCursors(io: DiskIo, directory: string, logger: Logger): Promise<CursorState> {
  const cursors = new Map<string, number>();
  const delivering = new Map<string, Delivering>();
  const state = { cursors, delivering };
  let text: string;
  try {
    text = (await io.readFile(path.join(directory, FILE))).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn('cannot read stream cursors; readers start from the oldest retained record', { error: err });
    return state;
  }
  try {
    const parsed = JSON.parse(text) as { readers?: Record<string, unknown>; delivering?: Record<string, Partial<Delivering>> };
    if (!checksumHolds(text, parsed)) throw new Error('checksum mismatch (a torn write)');
    for (const [id, seq] of Object.entries(parsed.readers ?? {})) {
      if (typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0) cursors.set(id, seq);
    }
    for (const [id, d] of Object.entries(parsed.delivering ?? {})) {
      if (Number.isSafeInteger(d?.from) && Number.isSafeInteger(d?.attempts)) delivering.set(id, { from: d.from!, attempts: d.attempts! });
    }
  } catch (err) {
    logger.warn('stream cursor file is unreadable; readers start from the oldest retained record', { error: err });
  }
  return state;
}

const CRC_KEY = ',"crc":';

/** The cursor file's text for `body` (its JSON), with the checksum of that text. */
function cursorText(body: string): string {
  const open = body.slice(0, -1);
  return `${open}${CRC_KEY}${crc32(open)}}`;
}

/** Whether the checksum of `text` (parsed as `parsed`) matches, or it has none (an earlier release's
 *  file). Only a top-level `crc` member is a checksum: a reader may be named "crc". The writer puts it
 *  last, so its key is the last `,"crc":` of the text. */
function checksumHolds(text: string, parsed: object): boolean {
  if (!Object.hasOwn(parsed, 'crc')) return true;
  const at = text.lastIndexOf(CRC_KEY);
  if (at === -1) return false;
  const tail = text.slice(at + CRC_KEY.length).trimEnd();
  if (!tail.endsWith('}')) return false;
  return Number(tail.slice(0, -1)) === crc32(text.slice(0, at));
}

/** Writes the cursor file; concurrent requests share writes (at most one running and one waiting). */
export class CursorStore {
  private readonly io: DiskIo;
  private readonly file: string;
  private readonly temp: string;
  private readonly logger: Logger;
  private readonly snapshot: () => CursorState;
  private running?: Promise<void>;
  private waiting?: Promise<void>;
  private failing = false;
  /** The file, open for writes in place once this process replaced it whole. */
  private fd?: number;
  /** Bytes of the file: a shorter state is padded to it, so no old bytes are left after the JSON. */
  private size = 0;
  /** Set by close(): the stream released its directory lock, so a late commit must not write (nor
   *  reopen a file handle nothing would close). */
  private closed = false;

  constructor(io: DiskIo, directory: string, logger: Logger, snapshot: () => CursorState) {
    this.io = io;
    this.file = path.join(directory, FILE);
    this.temp = path.join(directory, `${FILE}.tmp`);
    this.logger = logger;
    this.snapshot = snapshot;
  }

  /** Resolves once a write that started after this call finished; never rejects (a failed write is logged
   *  and retried by the next commit: the worst outcome is a re-delivery after a restart). After close()
   *  it writes nothing. */
  persist(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.waiting) return this.waiting;
    if (!this.running) return this.start();
    this.waiting = this.running.then(() => {
      this.waiting = undefined;
      return this.start();
    });
    return this.waiting;
  }

  private start(): Promise<void> {
    const run = this.write().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async write(): Promise<void> {
    const state = this.snapshot();
    const readers: Record<string, number> = {};
    for (const [id, seq] of state.cursors) readers[id] = seq;
    const body: { version: 1; readers: Record<string, number>; delivering?: Record<string, Delivering> } = { version: 1, readers };
    if (state.delivering.size > 0) body.delivering = Object.fromEntries(state.delivering);
    const text = cursorText(JSON.stringify(body));
    try {
      if (this.fd === undefined) await this.replace(text);
      else await this.overwrite(this.fd, text);
      if (this.failing) this.logger.info('stream cursors are written again');
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.logger.warn('cannot write stream cursors; delivery continues, a restart may deliver again', { error: err });
      this.failing = true;
      // The next write starts again from a whole new file.
      await this.release();
    }
  }

  /** Replaces the file whole (temp file, rename) and keeps it open for the writes in place that follow. */
  private async replace(text: string): Promise<void> {
    const data = Buffer.from(text + '\n');
    await this.io.writeFile(this.temp, data);
    await this.io.rename(this.temp, this.file);
    this.size = data.length;
    this.fd = await this.io.open(this.file, 'r+');
  }

  private async overwrite(fd: number, text: string): Promise<void> {
    const length = Buffer.byteLength(text) + 1;
    const data = Buffer.alloc(Math.max(length, this.size), 0x20);
    data.write(text, 0, 'utf8');
    data[data.length - 1] = 0x0a;
    await writeAll(this.io, fd, [data], 0);
    this.size = data.length;
  }

  private async release(): Promise<void> {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) await this.io.close(fd).catch(() => undefined);
  }

  /** Waits for the writes under way and closes the file; later persist() calls write nothing. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.running || this.waiting) await (this.waiting ?? this.running);
    await this.release();
  }
}
