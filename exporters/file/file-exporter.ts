// The `file` exporter: JSON span records, one per line, appended to a file (span-record.md). A batch
// counts as delivered only once its lines are in the file, so export() resolves after the write.
import { resolve } from 'node:path';
import type { Exporter } from '../../pipeline/component.ts';
import { RetryableError, StartupError } from '../../pipeline/errors.ts';
import type { Logger } from '../../pipeline/log.ts';
import { encodeBatchJsonLinesBuffer, type AttributesShape } from '../../pipeline/record/index.ts';
import type { Span } from '../../pipeline/span.ts';
import { LineFile } from './line-file.ts';

export interface FileExporterOptions {
  path: string;
  attributesShape: AttributesShape;
  /** Milliseconds; 0 writes each batch at once. */
  flushIntervalMs: number;
  /** 0: no rotation. */
  maxBytes: number;
  /** 0: keep all. */
  maxBackups: number;
  logger: Logger;
}

// Buffered lines are written early once they reach this size: waiting longer saves no write calls worth
// having and would only hold memory and delay the cursor. (The pipeline exports one batch at a time, so
// large batches go straight through and only small ones wait for the interval.)
const FLUSH_AT_BYTES = 1024 * 1024;

interface Waiter {
  resolve(): void;
  reject(err: Error): void;
}

export class FileExporter implements Exporter {
  private readonly options: FileExporterOptions;
  private readonly path: string;
  private file: LineFile | undefined;
  private stopped = false;
  /** Set when shutdown begins: from then on every batch is written at once. */
  private draining = false;
  /** Encoded batches waiting for the next write, and the export calls waiting on them. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The last write; writes run one after another, in export order. Never rejects. */
  private writing: Promise<void> = Promise.resolve();

  constructor(options: FileExporterOptions) {
    this.options = options;
    this.path = resolve(options.path);
  }

  async start(): Promise<void> {
    const { maxBytes, maxBackups, logger } = this.options;
    try {
      this.file = await LineFile.open(this.path, {
        maxBytes, maxBackups, warn: (message, fields) => logger.warn(message, fields),
      });
    } catch (err) {
      throw new StartupError(`file exporter: cannot open ${this.path} for appending: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  export(spans: Span[]): Promise<void> {
    if (!this.file || this.stopped) return Promise.reject(new RetryableError('file exporter is not running'));
    if (spans.length === 0) return Promise.resolve();
    const lines = encodeBatchJsonLinesBuffer(spans, { attributesShape: this.options.attributesShape });
    return new Promise<void>((resolve, reject) => {
      this.pending.push(lines);
      this.pendingBytes += lines.length;
      this.waiters.push({ resolve, reject });
      if (this.draining || this.options.flushIntervalMs === 0 || this.pendingBytes >= FLUSH_AT_BYTES) void this.writeBuffered();
      else this.timer ??= setTimeout(() => void this.writeBuffered(), this.options.flushIntervalMs);
    });
  }

  /** Shutdown has begun: write what is buffered and every later batch at once (Exporter.flush). */
  flush(): Promise<void> {
    this.draining = true;
    return this.writeBuffered();
  }

  /** Writes what is buffered now; resolves when that write (and every earlier one) is done. */
  private writeBuffered(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pending.length === 0) return this.writing;
    const data = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    const waiters = this.waiters;
    this.pending = [];
    this.pendingBytes = 0;
    this.waiters = [];
    const file = this.file!;
    this.writing = this.writing.then(() => file.append(data)).then(
      () => {
        for (const waiter of waiters) waiter.resolve();
      },
      (err: Error) => {
        // A full disk or an I/O error: the file was cut back to its last whole line, and the stream
        // still holds the spans, so the pipeline retries with backoff.
        const failure = new RetryableError(`file exporter: writing ${this.path} failed: ${err.message}`, undefined, {
          cause: err,
        });
        for (const waiter of waiters) waiter.reject(failure);
      },
    );
    return this.writing;
  }

  async shutdown(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.writeBuffered();
    await this.file?.close();
  }
}
