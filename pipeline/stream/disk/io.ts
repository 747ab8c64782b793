// The file operations the disk stream uses, behind one small interface so tests can count fsyncs and
// inject failures such as ENOSPC without a full disk. File descriptors are plain numbers.
import fs from 'node:fs';

export interface DiskIo {
  mkdir(path: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
  readFile(path: string): Promise<Buffer>;
  /** Writes `data` to a new file (replacing any), not synced. */
  writeFile(path: string, data: string | Buffer): Promise<void>;
  appendFile(path: string, data: string | Buffer): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  open(path: string, flags: string): Promise<number>;
  close(fd: number): Promise<void>;
  /** One writev at `position`; may write fewer bytes than given (the caller loops). */
  writev(fd: number, buffers: Buffer[], position: number): Promise<number>;
  read(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number>;
  fdatasync(fd: number): Promise<void>;
  /** fsync, for directories (a new file's name is durable only once its directory is synced). */
  fsync(fd: number): Promise<void>;
  ftruncate(fd: number, length: number): Promise<void>;
  fileSize(fd: number): Promise<number>;
}

function done<T>(resolve: (v: T) => void, reject: (e: Error) => void) {
  return (err: Error | null, value?: T) => (err ? reject(err) : resolve(value as T));
}

export const nodeIo: DiskIo = {
  mkdir: (path) => fs.promises.mkdir(path, { recursive: true }).then(() => undefined),
  readdir: (path) => fs.promises.readdir(path),
  readFile: (path) => fs.promises.readFile(path),
  writeFile: (path, data) => fs.promises.writeFile(path, data),
  appendFile: (path, data) => fs.promises.appendFile(path, data),
  rename: (from, to) => fs.promises.rename(from, to),
  unlink: (path) => fs.promises.unlink(path),
  open: (path, flags) => new Promise((resolve, reject) => fs.open(path, flags, 0o644, done(resolve, reject))),
  close: (fd) => new Promise((resolve, reject) => fs.close(fd, done(resolve, reject))),
  writev: (fd, buffers, position) =>
    new Promise((resolve, reject) => fs.writev(fd, buffers, position, (err, n) => (err ? reject(err) : resolve(n)))),
  read: (fd, buffer, offset, length, position) =>
    new Promise((resolve, reject) =>
      fs.read(fd, buffer, offset, length, position, (err, n) => (err ? reject(err) : resolve(n))),
    ),
  fdatasync: (fd) => new Promise((resolve, reject) => fs.fdatasync(fd, done(resolve, reject))),
  fsync: (fd) => new Promise((resolve, reject) => fs.fsync(fd, done(resolve, reject))),
  ftruncate: (fd, length) => new Promise((resolve, reject) => fs.ftruncate(fd, length, done(resolve, reject))),
  fileSize: (fd) => new Promise((resolve, reject) => fs.fstat(fd, (err, st) => (err ? reject(err) : resolve(st.size)))),
};

/** Writes every byte of `buffers` at `position`, looping over short writes. */
export async function writeAll(io: DiskIo, fd: number, buffers: Buffer[], position: number): Promise<void> {
  let total = 0;
  for (const b of buffers) total += b.length;
  let written = await io.writev(fd, buffers, position);
  while (written < total) {
    // Rare: a short write (e.g. the disk filled mid-way). Continue with what is left; the next call
    // usually fails with ENOSPC, which the caller turns into a truncation and a refusal.
    const rest: Buffer[] = [];
    let skip = written;
    for (const b of buffers) {
      if (skip >= b.length) skip -= b.length;
      else {
        rest.push(skip > 0 ? b.subarray(skip) : b);
        skip = 0;
      }
    }
    const n = await io.writev(fd, rest, position + written);
    if (n === 0) throw Object.assign(new Error('write made no progress'), { code: 'EIO' });
    written += n;
  }
}

/** Syncs a directory so a file just created or renamed in it survives a machine crash. */
export async function syncDirectory(io: DiskIo, dir: string): Promise<void> {
  const fd = await io.open(dir, 'r');
  try {
    await io.fsync(fd);
  } finally {
    await io.close(fd);
  }
}

/** `io` whose syncs (fdatasync and fsync) report when they started, once done (the fsync-duration metric). */
export function withSyncTiming(io: DiskIo, synced: (startedMs: number) => void): DiskIo {
  return {
    ...io,
    fdatasync: async (fd) => {
      const started = performance.now();
      await io.fdatasync(fd);
      synced(started);
    },
    fsync: async (fd) => {
      const started = performance.now();
      await io.fsync(fd);
      synced(started);
    },
  };
}
