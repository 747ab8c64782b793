// Reader cursors, one small JSON file per stream:
//   { "version": 1, "readers": { "<consumer id>": <seq> },
//     "delivering": { "<consumer id>": { "from": <seq>, "attempts": <n> } } }
// `readers` holds the last record each reader committed. `delivering` marks records handed out and not
// yet committed, with how many processes started delivering them: a process that dies (crash, OOM)
// leaves the mark behind, so a record that kills the daemon is recognised after a few restarts and
// dead-lettered instead of crash-looping. A clean close clears the marks. Replaced atomically (write a temp file, rename),
// never synced: a cursor that goes back after a machine crash only means records are delivered again
// (at least once), and a missing or unreadable file means "start from the oldest retained record".
import path from 'node:path';
import type { Logger } from '../../log.ts';
import type { DiskIo } from './io.ts';

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

  constructor(io: DiskIo, directory: string, logger: Logger, snapshot: () => CursorState) {
    this.io = io;
    this.file = path.join(directory, FILE);
    this.temp = path.join(directory, `${FILE}.tmp`);
    this.logger = logger;
    this.snapshot = snapshot;
  }

  /** Resolves once a write that started after this call finished; never rejects (a failed write is logged
   *  and retried by the next commit: the worst outcome is a re-delivery after a restart). */
  persist(): Promise<void> {
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
    try {
      await this.io.writeFile(this.temp, JSON.stringify(body) + '\n');
      await this.io.rename(this.temp, this.file);
      if (this.failing) this.logger.info('stream cursors are written again');
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.logger.warn('cannot write stream cursors; delivery continues, a restart may deliver again', { error: err });
      this.failing = true;
    }
  }
}
