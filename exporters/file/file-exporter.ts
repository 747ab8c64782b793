// The `file` exporter: JSON span records, one per line, appended to a file (span-record.md). A batch
// counts as delivered only once its lines are in the file, so export() resolves after the write.
//
// Each batch is written when it is handed over; batches that arrive while a write is in flight go
// together in the next one. There is no flush timer: the pipeline calls export() one batch at a time
// (SerialExporter) and waits for it, so a timer never had a second batch to coalesce, and it capped a
// busy pipeline at one batch per interval whenever a batch was small (measured: send_batch_size 512
// gave ~600 spans/s, docs/decisions/0160). How much goes in one write is the batch processor's call.
import { resolve } from 'node:path';
import type { Exporter } from '../../pipeline/component.ts';
import { RetryableError, StartupError } from '../../pipeline/errors.ts';
import type { Logger } from '../../pipeline/log.ts';
import { BatchLinesEncoder, type AttributesShape } from '../../codec/record/index.ts';
import type { Span } from '../../model/span.ts';
import { LineFile } from './line-file.ts';

export interface FileExporterOptions {
  path: string;
  attributesShape: AttributesShape;
  /** 0: no rotation. */
  maxBytes: number;
  /** 0: keep all. */
  maxBackups: number;
  logger: Logger;
}

interface Waiter {
  resolve(): void;
  reject(err: Error): void;
}

export class FileExporter implements Exporter {
  private readonly options: FileExporterOptions;
  private readonly path: string;
  private file: LineFile | undefined;
  /** Encodes each batch into the buffer of an earlier one once that one's write is over. */
  private readonly encoder: BatchLinesEncoder;
  private stopped = false;
  /** Encoded batches waiting for the next write, and the export calls waiting on them. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private waiters: Waiter[] = [];
  /** The write in flight, if any; writes run one after another, in export order. Never rejects. */
  private writing: Promise<void> | undefined;

  constructor(options: FileExporterOptions) {
    this.options = options;
    this.path = resolve(options.path);
    this.encoder = new BatchLinesEncoder({ attributesShape: options.attributesShape });
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
    const lines = this.encoder.encode(spans);
    return new Promise<void>((resolve, reject) => {
      this.pending.push(lines);
      this.pendingBytes += lines.length;
      this.waiters.push({ resolve, reject });
      this.writing ??= this.writeBuffered();
    });
  }

  /** Writes what is buffered, then whatever was handed over meanwhile, until nothing is left. */
  private async writeBuffered(): Promise<void> {
    while (this.pending.length > 0) await this.writeOnce();
    this.writing = undefined;
  }

  private writeOnce(): Promise<void> {
    const pending = this.pending;
    const data = pending.length === 1 ? pending[0] : Buffer.concat(pending, this.pendingBytes);
    // Batches copied into one write are done with; a lone batch is given back once its write is over.
    if (pending.length > 1) for (const lines of pending) this.encoder.release(lines);
    const waiters = this.waiters;
    this.pending = [];
    this.pendingBytes = 0;
    this.waiters = [];
    const file = this.file!;
    // Nothing keeps `data` after append() settles (line-file.ts writes it and returns), so its buffer
    // can take the next batch.
    return file.append(data).then(
      () => {
        this.encoder.release(data);
        for (const waiter of waiters) waiter.resolve();
      },
      (err: Error) => {
        this.encoder.release(data);
        // A full disk or an I/O error: the file was cut back to its last whole line, and the stream
        // still holds the spans, so the pipeline retries with backoff.
        const failure = new RetryableError(`file exporter: writing ${this.path} failed: ${err.message}`, undefined, {
          cause: err,
        });
        for (const waiter of waiters) waiter.reject(failure);
      },
    );
  }

  async shutdown(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.writing;
    await this.file?.close();
  }
}
