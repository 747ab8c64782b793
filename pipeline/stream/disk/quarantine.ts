// Damaged bytes found in a segment are moved out of it into `<directory>/quarantine.jsonl`: one JSON
// line per damaged range with where it was, why, and the bytes (base64), so nothing is silently dropped
// and an operator can inspect or salvage them. They cannot be decoded into spans, so they do not go to
// an exporter's dead-letter file.
import path from 'node:path';
import type { Logger } from '../../log.ts';
import { writeAll, type DiskIo } from './io.ts';

export interface QuarantineEntry {
  segment: string;
  offset: number;
  length: number;
  reason: string;
}

export class Quarantine {
  readonly file: string;
  private readonly io: DiskIo;
  private readonly logger: Logger;
  private readonly notify?: (entry: QuarantineEntry) => void;

  constructor(io: DiskIo, directory: string, logger: Logger, notify?: (entry: QuarantineEntry) => void) {
    this.io = io;
    this.file = path.join(directory, 'quarantine.jsonl');
    this.logger = logger;
    this.notify = notify;
  }

  async put(entry: QuarantineEntry, bytes: Buffer): Promise<void> {
    const line = JSON.stringify({ at: new Date().toISOString(), ...entry, bytes: bytes.toString('base64') }) + '\n';
    // Synced before the caller removes the bytes from the segment.
    const fd = await this.io.open(this.file, 'a');
    try {
      await writeAll(this.io, fd, [Buffer.from(line)], await this.io.fileSize(fd));
      await this.io.fdatasync(fd);
    } finally {
      await this.io.close(fd);
    }
    this.logger.error('corrupt record moved to quarantine', { ...entry, quarantine: this.file });
    this.notify?.(entry);
  }
}
