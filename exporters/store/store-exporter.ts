// The `store` exporter (read-api.md §9): each delivered batch is one SQLite transaction, and the batch
// counts as delivered (the stream cursor moves) only once it is committed. The same open database
// serves the http receiver's reads through `reads()`.
import { resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Exporter } from '../../pipeline/component.ts';
import { RetryableError, StartupError } from '../../pipeline/errors.ts';
import type { Logger } from '../../pipeline/log.ts';
import type { Span } from '../../model/span.ts';
import { openStoreDatabase } from './database.ts';
import { Pruner } from './pruner.ts';
import { SpanWriter } from './span-writer.ts';
import { TraceReads } from './reads.ts';
import { ReadWorker } from './read-worker.ts';

export interface StoreExporterOptions {
  path: string;
  maxBytes: number;
  /** Milliseconds; 0: no age bound. */
  maxAge: number;
  pruneInterval: number;
  logger: Logger;
  /** The store clock, in milliseconds (tests move it). */
  now?: () => number;
}

/** SQLite's primary result codes a later attempt can get past (§9.2): busy, disk full, I/O error. */
const RETRYABLE_CODES = new Set([5 /* BUSY */, 13 /* FULL */, 10 /* IOERR */]);

function isRetryable(error: unknown): boolean {
  const code = (error as { errcode?: unknown }).errcode;
  return typeof code === 'number' && RETRYABLE_CODES.has(code & 0xff);
}

export class StoreExporter implements Exporter {
  readonly #options: StoreExporterOptions;
  readonly #path: string;
  readonly #now: () => number;
  #db: DatabaseSync | undefined;
  /** The read-only connection of the reads. */
  #reader: DatabaseSync | undefined;
  /** The read thread of the queries (read-worker.ts). */
  #readWorker: ReadWorker | undefined;
  #writer: SpanWriter | undefined;
  #pruner: Pruner | undefined;
  #reads: TraceReads | undefined;
  #ageTimer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: StoreExporterOptions) {
    this.#options = options;
    this.#path = resolve(options.path);
    this.#now = options.now ?? Date.now;
  }

  get path(): string {
    return this.#path;
  }

  async start(): Promise<void> {
    const db = openStoreDatabase(this.#path);
    this.#db = db;
    this.#writer = new SpanWriter(db);
    this.#pruner = new Pruner(db, this.#options.maxBytes, this.#options.logger);
    try {
      this.#reader = new DatabaseSync(this.#path, { readOnly: true, timeout: 5000 });
    } catch (error) {
      throw new StartupError(`store exporter: cannot open ${this.#path} for reading: ${(error as Error).message}`, { cause: error });
    }
    this.#readWorker = new ReadWorker(this.#path);
    try {
      await this.#readWorker.start();
    } catch (error) {
      throw new StartupError(`store exporter: cannot open ${this.#path} for reading: ${(error as Error).message}`, { cause: error });
    }
    this.#reads = new TraceReads(db, this.#reader, this.#readWorker);
    try {
      this.#pruner.pruneForSize();
      this.pruneForAge();
    } catch (error) {
      throw new StartupError(`store exporter: cannot prune ${this.#path}: ${(error as Error).message}`, { cause: error });
    }
    if (this.#options.maxAge > 0) {
      this.#ageTimer = setInterval(() => this.#pruneForAgeLogged(), this.#options.pruneInterval);
      this.#ageTimer.unref();
    }
  }

  /** The read side over this store; undefined until started and after shutdown. */
  reads(): TraceReads | undefined {
    return this.#stopped ? undefined : this.#reads;
  }

  async export(spans: Span[]): Promise<void> {
    const writer = this.#writer;
    if (writer === undefined || this.#stopped) throw new RetryableError('store exporter is not running');
    // A query just sent to the read thread reads the store as it was when it was made: the batch waits for
    // its snapshot (the thread picking it up, not the query).
    await this.#readWorker?.snapshotTaken();
    if (this.#stopped) throw new RetryableError('store exporter is not running');
    try {
      writer.write(spans, this.#now());
    } catch (error) {
      const message = `store exporter: writing ${this.#path} failed: ${(error as Error).message}`;
      if (isRetryable(error)) throw new RetryableError(message, undefined, { cause: error });
      throw new Error(message, { cause: error });
    }
    this.#reads?.committed();
    // The batch is committed whatever pruning does: a failed pruning is logged, not retried as a write.
    try {
      this.#pruner!.pruneForSize();
    } catch (error) {
      this.#options.logger.warn('store pruning failed', { path: this.#path, error: (error as Error).message });
    }
  }

  /** Deletes traces older than `max_age` (no bound: nothing). Also run every `prune_interval`. */
  pruneForAge(): void {
    if (this.#options.maxAge > 0 && this.#pruner !== undefined) this.#pruner.pruneForAge(this.#now(), this.#options.maxAge);
  }

  #pruneForAgeLogged(): void {
    if (this.#stopped) return;
    try {
      this.pruneForAge();
    } catch (error) {
      this.#options.logger.warn('store pruning failed', { path: this.#path, error: (error as Error).message });
    }
  }

  async shutdown(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#ageTimer);
    // Before the connections close: a PATCH waiting for an edit then watches the store replacing this one.
    this.#reads?.shuttingDown();
    await this.#readWorker?.close();
    if (this.#reader?.isOpen) this.#reader.close();
    const db = this.#db;
    this.#db = undefined;
    if (db?.isOpen) {
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      db.close();
    }
  }
}

/** The read side of `exporter` when it is a store exporter (the http receiver's read routes), else undefined. */
export function storeReadsOf(exporter: unknown): (() => TraceReads | undefined) | undefined {
  return exporter instanceof StoreExporter ? () => exporter.reads() : undefined;
}
