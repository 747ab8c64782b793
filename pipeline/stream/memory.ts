// The in-memory ingest stream (`storage: memory`): bounded by an estimate of the bytes it holds.
// Speed over durability: what it holds is lost if the process dies. When full it refuses (503 +
// Retry-After at the receiver), never drops.
import { RefusedError, type Refusal } from '../errors.ts';
import type { Span } from '../../model/span.ts';
import type { IngestStream, StreamHealth, StreamReader, StreamRecord } from './stream.ts';
import { estimateSpanBytes, estimateFromWire } from './size.ts';

export interface MemoryStreamOptions {
  maxBytes: number;
  /** Told to clients in Retry-After when the stream is full. */
  retryAfterMs: number;
}

interface HeldRecord extends StreamRecord {
  bytes: number;
  /** Spans appended before this record, ever: a reader's lag is then one subtraction. */
  spansBefore: number;
}

export class MemoryStream implements IngestStream {
  private readonly options: MemoryStreamOptions;
  /** Records not yet committed by every reader, oldest first; `records[i].seq === firstSeq + i`. */
  private records: HeldRecord[] = [];
  private firstSeq = 1;
  private nextSeq = 1;
  private bytes = 0;
  private spans = 0;
  private appendedSpans = 0;
  /** `bytes` when an append was last refused for size; Infinity once space was freed since. */
  private refusedAt = Infinity;
  private sealed = false;
  private readonly readers = new Map<string, MemoryReader>();
  /** Resolvers of readers waiting for an append, the seal or an abort. */
  private waiters: Array<() => void> = [];
  /** Signals whose abort already wakes the waiters. */
  private readonly watched = new WeakSet<AbortSignal>();
  private readonly wakeAll = () => this.wake();

  constructor(options: MemoryStreamOptions) {
    this.options = options;
  }

  async open(): Promise<void> {}

  refusal(): Refusal | undefined {
    if (this.sealed) return { message: 'ingest stream is shutting down', retryAfterMs: this.options.retryAfterMs };
    // At the bound every append is refused; after a refusal for size, so is one of that size until
    // readers free space (a stream just under its bound would otherwise decode each request to refuse it).
    if (this.bytes >= Math.min(this.options.maxBytes, this.refusedAt)) return { message: this.fullMessage(), retryAfterMs: this.options.retryAfterMs };
    return undefined;
  }

  private fullMessage(): string {
    return `ingest stream full (${this.bytes} of ${this.options.maxBytes} bytes held)`;
  }

  async append(spans: Span[], wireBytes?: number): Promise<void> {
    if (this.sealed) throw new RefusedError('ingest stream is shutting down', this.options.retryAfterMs);
    let bytes = 0;
    if (wireBytes !== undefined) bytes = estimateFromWire(spans.length, wireBytes);
    else for (let i = 0; i < spans.length; i++) bytes += estimateSpanBytes(spans[i]);
    // A record larger than the whole bound is still taken when the stream is empty, so one big request
    // can never be refused forever.
    if (this.bytes + bytes > this.options.maxBytes && this.bytes > 0) {
      this.refusedAt = this.bytes;
      throw new RefusedError(this.fullMessage(), this.options.retryAfterMs);
    }
    this.records.push({ seq: this.nextSeq++, spans, bytes, spansBefore: this.appendedSpans });
    this.bytes += bytes;
    this.spans += spans.length;
    this.appendedSpans += spans.length;
    this.wake();
  }

  reader(consumerId: string): StreamReader {
    let reader = this.readers.get(consumerId);
    if (!reader) {
      reader = new MemoryReader(this, this.firstSeq);
      this.readers.set(consumerId, reader);
    }
    return reader;
  }

  async handOver(consumers: readonly string[]): Promise<void> {
    // A consumer new to this stream starts after the oldest commit of those it replaces (see IngestStream).
    let from = Infinity;
    for (const reader of this.readers.values()) from = Math.min(from, reader.committed);
    if (from === Infinity) from = this.firstSeq - 1;
    const keep = new Set(consumers);
    for (const [id, reader] of this.readers) {
      if (keep.has(id)) reader.rewind();
      else this.readers.delete(id);
    }
    for (const id of consumers) if (!this.readers.has(id)) this.readers.set(id, new MemoryReader(this, from + 1));
    this.release();
  }

  stats(): { records: number; spans: number; bytes: number } {
    return { records: this.records.length, spans: this.spans, bytes: this.bytes };
  }

  health(): StreamHealth {
    const held = { bytes: this.bytes, maxBytes: this.options.maxBytes };
    return this.sealed ? { writable: false, reason: 'shutting down', ...held } : { writable: true, ...held };
  }

  seal(): void {
    this.sealed = true;
    this.wake();
  }

  async close(): Promise<void> {
    this.seal();
  }

  // ---- used by readers ----

  isSealed(): boolean {
    return this.sealed;
  }

  /** Whole records from `fromSeq` on, at least one when any exists, up to about `maxSpans` spans. */
  slice(fromSeq: number, maxSpans: number): StreamRecord[] {
    const out: StreamRecord[] = [];
    let count = 0;
    for (let i = Math.max(0, fromSeq - this.firstSeq); i < this.records.length; i++) {
      const record = this.records[i];
      if (out.length > 0 && count + record.spans.length > maxSpans) break;
      out.push(record);
      count += record.spans.length;
    }
    return out;
  }

  /** Estimated bytes of the records after `seq` (a walk: read when the metrics are scraped, not per append). */
  bytesAfter(seq: number): number {
    let bytes = 0;
    for (let i = Math.max(0, seq + 1 - this.firstSeq); i < this.records.length; i++) bytes += this.records[i].bytes;
    return bytes;
  }

  spansAfter(seq: number): number {
    const i = Math.max(0, seq + 1 - this.firstSeq);
    return i < this.records.length ? this.appendedSpans - this.records[i].spansBefore : 0;
  }

  /**
   * Resolves at the next append, the seal, or when `signal` aborts. A reader waits after nearly every
   * append it gathers, so the abort listener is added once per signal (the batcher's signal lives for
   * one gathering, the runner's for the process), not once per wait: an abort wakes every waiter, and a
   * reader woken for nothing looks again and waits again.
   */
  waitForAppend(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      this.waiters.push(resolve);
      if (signal !== undefined && !this.watched.has(signal)) {
        this.watched.add(signal);
        signal.addEventListener('abort', this.wakeAll, { once: true });
      }
    });
  }

  /** Drops records every reader has committed. */
  release(): void {
    let upTo = Infinity;
    for (const reader of this.readers.values()) upTo = Math.min(upTo, reader.committed);
    if (upTo === Infinity) return;
    let drop = 0;
    while (drop < this.records.length && this.records[drop].seq <= upTo) {
      this.bytes -= this.records[drop].bytes;
      this.spans -= this.records[drop].spans.length;
      drop++;
    }
    if (drop > 0) {
      this.records = this.records.slice(drop);
      this.firstSeq += drop;
      if (this.bytes < this.refusedAt) this.refusedAt = Infinity;
    }
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

class MemoryReader implements StreamReader {
  private readonly stream: MemoryStream;
  /** Next seq to hand out. */
  private position: number;
  /** Highest seq delivered. */
  committed: number;

  constructor(stream: MemoryStream, firstSeq: number) {
    this.stream = stream;
    this.position = firstSeq;
    this.committed = firstSeq - 1;
  }

  async read(maxSpans: number, signal?: AbortSignal): Promise<StreamRecord[]> {
    for (;;) {
      if (signal?.aborted) return [];
      const records = this.stream.slice(this.position, maxSpans);
      if (records.length > 0) {
        this.position = records[records.length - 1].seq + 1;
        return records;
      }
      if (this.stream.isSealed()) return [];
      await this.stream.waitForAppend(signal);
    }
  }

  /** Hands out again what was handed out and not committed (handOver). */
  rewind(): void {
    this.position = this.committed + 1;
  }

  async commit(seq: number): Promise<void> {
    if (seq <= this.committed) return;
    this.committed = seq;
    this.stream.release();
  }

  lag(): number {
    return this.stream.spansAfter(this.committed);
  }

  lagBytes(): number {
    return this.stream.bytesAfter(this.committed);
  }
}
