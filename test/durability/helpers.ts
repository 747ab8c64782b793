// Shared pieces of the durability tests: temp directories, a log capture, a file layer that counts syncs
// and can pretend the disk is full, and polling for background work (segment deletion).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SpanEncoder } from '../../codec/disk/span-codec.ts';
import { appendRecord, parseRecord } from '../../codec/disk/record.ts';
import type { Span } from '../../model/span.ts';
import { createLogger, type Logger } from '../../pipeline/log.ts';
import { nodeIo, type DiskIo } from '../../pipeline/stream/disk/io.ts';

export function tempDir(prefix = 'tracehop-dur-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface CapturedLog {
  logger: Logger;
  lines: Array<Record<string, unknown>>;
  find(msg: string): Record<string, unknown> | undefined;
}

export function captureLogger(): CapturedLog {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'debug', write: (line) => lines.push(JSON.parse(line)) });
  return { logger, lines, find: (msg) => lines.find((l) => String(l.msg).includes(msg)) };
}

/** A file layer over the real one that counts writes and syncs, and fails writes with ENOSPC while
 *  `full` is set (after writing `partialBytes` of the batch, as a disk filling mid-write does). */
export interface TestIo extends DiskIo {
  syncs: number;
  reads: number;
  writtenBytes: number;
  /** `writtenBytes` when the last data sync started: what a crash could not lose. */
  syncedBytes: number;
  full: boolean;
  partialBytes: number;
}

export function testIo(): TestIo {
  const io: TestIo = {
    ...nodeIo,
    syncs: 0,
    reads: 0,
    writtenBytes: 0,
    syncedBytes: 0,
    full: false,
    partialBytes: 0,
    async writev(fd, buffers, position) {
      if (io.full) {
        let total = 0;
        for (const b of buffers) total += b.length;
        const part = Math.min(io.partialBytes, total);
        if (part > 0) {
          const joined = Buffer.concat(buffers).subarray(0, part);
          io.partialBytes = 0;
          return nodeIo.writev(fd, [joined], position);
        }
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28 });
      }
      const n = await nodeIo.writev(fd, buffers, position);
      io.writtenBytes += n;
      return n;
    },
    async fdatasync(fd) {
      const covered = io.writtenBytes;
      await nodeIo.fdatasync(fd);
      io.syncs++;
      io.syncedBytes = Math.max(io.syncedBytes, covered);
    },
    async read(fd, buffer, offset, length, position) {
      io.reads++;
      return nodeIo.read(fd, buffer, offset, length, position);
    },
  };
  return io;
}

/** Polls `check` until it holds (background work such as segment deletion), failing after 10 s. */
export async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function segmentFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => n.endsWith('.seg')).sort();
}

/**
 * Where each record of `buf` (a segment's bytes) starts and ends, read with the stream's own record
 * parser; throws, naming `what` and the offset, at anything that is not a whole valid record.
 */
export function recordBounds(buf: Buffer, what: string): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  for (let p = 0; p < buf.length; ) {
    const r = parseRecord(buf, p, buf.length);
    if (r.kind !== 'ok') throw new Error(`${what}: ${r.kind} record at ${p}`);
    out.push({ start: p, end: r.end });
    p = r.end;
  }
  return out;
}

/** The bytes of one record of `spans` alone, as the disk stream appends it (header, no seq yet). */
export function recordOf(spans: Span[]): Buffer {
  const encoder = new SpanEncoder();
  appendRecord(encoder, spans);
  return encoder.take();
}

/**
 * A segment left by a release before the THR2 records: three THR1 records, seq 1..3, of the spans
 * `thr1BacklogRecords()` builds (fixtures/README.md says how it was written, by that release's code).
 */
export function thr1Backlog(): Buffer {
  return fs.readFileSync(new URL('./fixtures/thr1-backlog.seg', import.meta.url));
}
