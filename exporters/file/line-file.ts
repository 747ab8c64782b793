// An append-only file of whole lines with size-based rotation. Every write(2) it issues ends on a line
// boundary, so a crash or a reader can only meet complete lines plus, after a crash, one torn last line,
// which open() cuts off (the stream delivers that record again: at least once). One caveat that no
// writer can remove: a write(2) spanning several pages may become visible to a concurrent reader page by
// page (ext4 grows the size per page), so a reader following the file should still stop at the last
// newline, as tail -F style readers do.
//
// No fsync here on purpose: durability is the ingest stream's job (`storage.fsync`), not this exporter's.
// "Written" means handed to the kernel, which survives a crash of the daemon; what survives a power loss is
// the file system's business, as for any log file.
import { access, mkdir, open, rename, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { backupPath, pruneBackups } from './backups.ts';

const NEWLINE = 0x0a;
const TAIL_CHUNK = 64 * 1024;

export interface LineFileOptions {
  /** 0: never rotate. */
  maxBytes: number;
  /** 0: keep every rotated file. */
  maxBackups: number;
  /** Told about cut torn lines and about backups that could not be pruned. */
  warn(message: string, fields: Record<string, unknown>): void;
}

export class LineFile {
  readonly path: string;
  private readonly options: LineFileOptions;
  private handle: FileHandle | undefined;
  private size = 0;
  private lastBackupMs = 0;

  private constructor(path: string, options: LineFileOptions) {
    this.path = path;
    this.options = options;
  }

  /** Creates missing directories, opens for appending, cuts a torn last line. Errors are the fs errors. */
  static async open(path: string, options: LineFileOptions): Promise<LineFile> {
    const file = new LineFile(path, options);
    await mkdir(dirname(path), { recursive: true });
    await file.openHandle();
    return file;
  }

  /** Bytes in the live file. */
  get bytes(): number {
    return this.size;
  }

  /**
   * Appends `data`, which holds whole lines (it ends with a newline). Before a write would take the file
   * past maxBytes the file is rotated; data bigger than a whole file is split between lines. On failure
   * the file is cut back to where it was, so a retry does not leave a torn line in the middle.
   */
  async append(data: Buffer): Promise<void> {
    const { maxBytes } = this.options;
    let offset = 0;
    while (offset < data.length) {
      let end = data.length;
      if (maxBytes > 0 && end - offset > maxBytes - this.size) {
        if (this.size > 0) {
          await this.rotate();
          continue;
        }
        // An empty file and more than fits in one: as many whole lines as fit, or one oversized line.
        const cut = data.lastIndexOf(NEWLINE, offset + maxBytes - 1);
        end = cut >= offset ? cut + 1 : data.indexOf(NEWLINE, offset) + 1;
      }
      await this.writeRange(data, offset, end);
      offset = end;
    }
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }

  private async openHandle(): Promise<void> {
    // `a+`: created when missing, every write appends, and the tail can be read for the torn-line check.
    const handle = await open(this.path, 'a+');
    try {
      const { size } = await handle.stat();
      this.size = await this.cutTornLine(handle, size);
    } catch (err) {
      await handle.close();
      throw err;
    }
    this.handle = handle;
  }

  /** A last line without its newline was left by a crash mid-write: cut it. Returns the new size. */
  private async cutTornLine(handle: FileHandle, size: number): Promise<number> {
    if (size === 0) return 0;
    const buffer = Buffer.allocUnsafe(Math.min(TAIL_CHUNK, size));
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - buffer.length);
      const { bytesRead } = await handle.read(buffer, 0, end - start, start);
      const newline = buffer.subarray(0, bytesRead).lastIndexOf(NEWLINE);
      if (newline >= 0) {
        const keep = start + newline + 1;
        if (keep === size) return size;
        return this.truncateTo(handle, keep, size);
      }
      end = start;
    }
    return this.truncateTo(handle, 0, size);
  }

  private async truncateTo(handle: FileHandle, keep: number, size: number): Promise<number> {
    await handle.truncate(keep);
    this.options.warn('cut a torn last line left by an earlier crash; its record is delivered again', {
      path: this.path, bytes: size - keep,
    });
    return keep;
  }

  private async writeRange(data: Buffer, start: number, end: number): Promise<void> {
    if (!this.handle) await this.openHandle();
    const handle = this.handle!;
    const before = this.size;
    try {
      let position = start;
      // One write normally takes it all; a short write (a full disk, a signal) continues where it stopped.
      while (position < end) {
        const { bytesWritten } = await handle.write(data, position, end - position);
        position += bytesWritten;
      }
      this.size = before + (end - start);
    } catch (err) {
      await handle.truncate(before).catch(() => {});
      throw err;
    }
  }

  private async rotate(): Promise<void> {
    const target = await this.freeBackupPath();
    // Renamed while still open (fine on POSIX): if the rename fails, nothing changed.
    await rename(this.path, target);
    await this.close();
    this.size = 0;
    await this.openHandle();
    try {
      await pruneBackups(this.path, this.options.maxBackups);
    } catch (err) {
      this.options.warn('could not delete old rotated files', { path: this.path, err });
    }
  }

  /** A backup name not taken yet: two rotations within one millisecond, or a clock that went back
   *  since an earlier run, must not overwrite a backup; the stamp moves on by a millisecond instead. */
  private async freeBackupPath(): Promise<string> {
    let at = Math.max(Date.now(), this.lastBackupMs + 1);
    for (;;) {
      const candidate = backupPath(this.path, at);
      if (!(await exists(candidate))) {
        this.lastBackupMs = at;
        return candidate;
      }
      at++;
    }
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
