// The segment files of one disk stream: which exist, the open one appends go to, and every file
// operation on them (write, sync, cut back, read a range, delete). DiskStream decides what to write and
// when (group commit, bounds, readers); this is where its bytes meet the disk.
import type { Logger } from '../../log.ts';
import { syncDirectory, writeAll, type DiskIo } from './io.ts';
import { Segment } from './segment.ts';

export type FsyncMode = 'always' | 'interval' | 'never';

/** One record of a group to write: its seq, its length in the group's bytes, and its spans (only counted here). */
export interface RecordToWrite {
  seq: number;
  length: number;
  spans: ArrayLike<unknown>;
}

export interface SegmentLogOptions {
  directory: string;
  io: DiskIo;
  logger: Logger;
  fsync: FsyncMode;
  /** A segment is closed once it reaches this size. */
  segmentBytes: number;
}

export class SegmentLog {
  /** Oldest first. */
  readonly segments: Segment[] = [];
  /** Bytes of the segment files. */
  bytes = 0;
  /** A failed write left bytes past the open segment's end that must be cut before the next write. */
  needsTruncate = false;
  private readonly dir: string;
  private readonly io: DiskIo;
  private readonly logger: Logger;
  private readonly fsync: FsyncMode;
  private readonly segmentBytes: number;
  /** The segment appends go to, with its open descriptor. */
  private active?: { segment: Segment; fd: number };
  /** Written since the last sync (interval and never modes). */
  private dirty = false;

  constructor(options: SegmentLogOptions) {
    this.dir = options.directory;
    this.io = options.io;
    this.logger = options.logger;
    this.fsync = options.fsync;
    this.segmentBytes = options.segmentBytes;
  }

  /** Takes over a segment recovery found (call oldest first). */
  adopt(segment: Segment): void {
    this.segments.push(segment);
    this.bytes += segment.size;
  }

  /** After recovery: appends continue in the newest segment while it has room. */
  async resumeNewest(): Promise<void> {
    const newest = this.segments[this.segments.length - 1];
    if (newest && newest.size < this.segmentBytes) this.active = { segment: newest, fd: await this.io.open(newest.path, 'r+') };
  }

  /**
   * Writes a group of records, `bytes` holding them back to back in `group`'s order, with one write (and,
   * with fsync: always, one fdatasync) and indexes them. On failure whatever part reached the file is cut
   * back (the caller refuses those appends, so their bytes must not be replayed after a restart) and the
   * error is thrown.
   */
  async write(group: RecordToWrite[], bytes: Buffer): Promise<void> {
    let active: { segment: Segment; fd: number };
    let position: number;
    try {
      active = await this.activeSegment(group[0].seq);
      position = active.segment.size;
      await writeAll(this.io, active.fd, [bytes], position);
      if (this.fsync === 'always') await this.io.fdatasync(active.fd);
      else this.dirty = true;
    } catch (err) {
      if (this.active) {
        this.needsTruncate = true;
        await this.truncateActive();
      }
      throw err;
    }
    let offset = position;
    for (const r of group) {
      active.segment.add(r.seq, offset, r.length, r.spans.length);
      offset += r.length;
    }
    this.bytes += bytes.length;
  }

  /** The segment to write a group starting at `seq` to: the open one, or a new file once it is full. */
  private async activeSegment(seq: number): Promise<{ segment: Segment; fd: number }> {
    if (this.needsTruncate) await this.truncateActive();
    if (this.needsTruncate) throw Object.assign(new Error('a failed write could not be cut off'), { code: 'EIO' });
    if (this.active && this.active.segment.size < this.segmentBytes) return this.active;
    if (this.active) await this.closeActive(this.fsync !== 'never');
    const segment = new Segment(this.dir, seq);
    const fd = await this.io.open(segment.path, 'w');
    try {
      if (this.fsync !== 'never') await syncDirectory(this.io, this.dir);
    } catch (err) {
      await this.io.close(fd).catch(() => undefined);
      await this.io.unlink(segment.path).catch(() => undefined);
      throw err;
    }
    this.segments.push(segment);
    this.active = { segment, fd };
    return this.active;
  }

  /** Closes the open segment (syncing what was written since the last sync when `sync`). */
  async closeActive(sync: boolean): Promise<void> {
    const active = this.active;
    if (!active) return;
    this.active = undefined;
    if (this.dirty && sync) await this.io.fdatasync(active.fd).catch((err) => this.logger.error('fsync failed', { error: err }));
    this.dirty = false;
    await this.io.close(active.fd).catch(() => undefined);
  }

  private async truncateActive(): Promise<void> {
    if (!this.active) {
      this.needsTruncate = false;
      return;
    }
    try {
      await this.io.ftruncate(this.active.fd, this.active.segment.size);
      this.needsTruncate = false;
    } catch (err) {
      this.logger.error('cannot cut a failed write off the stream; appends are refused until it works', { error: err });
    }
  }

  /** fsync: interval's timer: syncs the open segment when something was written since the last sync. */
  async syncIfDirty(): Promise<void> {
    if (!this.dirty || !this.active) return;
    this.dirty = false;
    try {
      await this.io.fdatasync(this.active.fd);
    } catch (err) {
      this.dirty = true;
      this.logger.error('periodic fsync of the ingest stream failed', { error: err });
    }
  }

  /**
   * Deletes the oldest segments whose records all have seq <= `seq`. The open segment goes too only when
   * `mayDeleteOpen(size)` says so (DiskStream reuses a small one rather than creating a file per catch-up),
   * it is not empty, and no torn bytes are waiting to be cut from it.
   */
  async deleteThrough(seq: number, mayDeleteOpen: (size: number) => boolean): Promise<void> {
    while (this.segments.length > 0) {
      const s = this.segments[0];
      if (s.lastSeq > seq) break;
      if (this.active?.segment === s) {
        if (!mayDeleteOpen(s.size) || this.needsTruncate || s.size === 0) break;
        await this.closeActive(false);
      }
      try {
        await this.io.unlink(s.path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
          this.logger.error('cannot delete a consumed segment', { segment: s.path, error: err });
          break;
        }
      }
      this.segments.shift();
      this.bytes -= s.size;
    }
  }

  /** The bytes of records `first`..`last` (indexes) of `segment`, read in one go. */
  async read(segment: Segment, first: number, last: number): Promise<Buffer> {
    const start = segment.offsets[first];
    const end = segment.offsets[last] + segment.lengths[last];
    const buf = Buffer.allocUnsafe(end - start);
    const fd = await this.io.open(segment.path, 'r');
    try {
      let got = 0;
      while (got < buf.length) {
        const n = await this.io.read(fd, buf, got, buf.length - got, start + got);
        if (n === 0) break;
        got += n;
      }
    } finally {
      await this.io.close(fd);
    }
    return buf;
  }

  /** The oldest segment holding a record with seq >= `seq`. */
  holding(seq: number): Segment | undefined {
    return this.segments.find((s) => s.lastSeq >= seq);
  }

  /** The oldest record held, or undefined when the files hold none. */
  oldestSeq(): number | undefined {
    for (const s of this.segments) if (s.count > 0) return s.firstSeq;
    return undefined;
  }

  /** Records, spans and bytes held with seq > `seq`. */
  countAfter(seq: number): { records: number; spans: number; bytes: number } {
    const total = { records: 0, spans: 0, bytes: 0 };
    for (let i = this.segments.length - 1; i >= 0; i--) {
      const s = this.segments[i];
      if (s.lastSeq <= seq) break;
      const c = s.countFrom(s.indexFrom(seq + 1));
      total.records += c.records;
      total.spans += c.spans;
      total.bytes += c.bytes;
    }
    return total;
  }
}
