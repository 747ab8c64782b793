// The durable ingest stream: a write-ahead log of segment files under one directory per pipeline
// (docs/decisions/0230-disk-stream-format.md, 0232-disk-stream-fsync.md).
//
// append: encode the spans (after the queued records, in one buffer), check the bound, queue. One flush at
// a time writes every queued record with one write and (fsync: always) one fdatasync, so concurrent
// requests share a sync (group commit), and all that arrive while it runs form the next group: groups grow
// with the load. Each append resolves only after the write, and the sync, that covers it. Then its record
// becomes visible to readers, from memory (RecentRecords) while they keep up, from the segment files when
// they fall behind.
// commit: the reader's cursor goes to cursors.json (written in place, cursors.ts); a segment every reader
// has passed is deleted.
// The segment files themselves (writing, syncing, cutting back, reading, deleting) are SegmentLog's.
import path from 'node:path';
import { RefusedError, StartupError, type Refusal } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { Span } from '../../../model/span.ts';
import type { IngestStream, StreamHealth, StreamReader, StreamRecord } from '../stream.ts';
import { CursorStore, loadCursors, type CursorState, type Delivering } from './cursors.ts';
import { nodeIo, type DiskIo } from './io.ts';
import { lockDirectory } from './lock.ts';
import { Quarantine, type QuarantineEntry } from './quarantine.ts';
import { SpanEncoder } from '../../../codec/disk/span-codec.ts';
import { appendRecord, decodeRecordSpans, parseRecord, stampSeq } from '../../../codec/disk/record.ts';
import { RecentRecords } from './recent.ts';
import { recoverSegment } from './recover.ts';
import { parseSegmentName, Segment } from './segment.ts';
import { SegmentLog, type FsyncMode } from './segment-log.ts';

export type { FsyncMode } from './segment-log.ts';

export interface DiskStreamOptions {
  /** This stream's own directory (the pipeline's, e.g. `./data/traces_default`); created if missing. */
  directory: string;
  fsync: FsyncMode;
  /** With `fsync: interval`: how often written records are synced. */
  fsyncIntervalMs: number;
  /** Bound on the segment files; appends are refused (RefusedError) while it is reached. */
  maxBytes: number;
  logger: Logger;
  /**
   * Crash-loop protection: a record whose delivery was under way when the process died `maxAttempts`
   * times (a record that crashes an exporter, or the process, every time) is handed to `write` and
   * committed instead of being delivered again. After the first such death the reader gets that record
   * alone, so only the culprit is dead-lettered. Exceptions thrown by an exporter are the runner's
   * business (RunnerOptions.maxAttempts); this covers what no catch can: the process going down.
   */
  deadLetter?: { maxAttempts: number; write(consumerId: string, spans: Span[], reason: string): Promise<void> };
  /** Told about each damaged byte range moved to `<directory>/quarantine.jsonl` (e.g. for a metric). */
  onQuarantine?: (entry: QuarantineEntry) => void;
  /** When given, persisted cursors of other consumers (an exporter removed from the config) are
   *  dropped at open instead of holding segments forever. */
  consumers?: string[];
  /** A segment is closed once it reaches this size. Default: maxBytes / 16, within 64 KiB..64 MiB. */
  segmentBytes?: number;
  /** Retry-After of refusals. Default 1000. */
  retryAfterMs?: number;
  /** File operations (tests inject failures and count syncs). */
  io?: DiskIo;
  /** Told the number of records each group commit wrote (the group-commit size metric). */
  onGroupCommit?: (records: number) => void;
}

interface Pending {
  seq: number;
  spans: Span[];
  /** Bytes of its record, which sits after the previous pending record's in the encoder's buffer. */
  length: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** Largest read from the segment files per `read` call, beyond the first record. */
const MAX_DISK_READ = 16 * 1024 * 1024;
/** Bytes (encoded size) of recent records kept decoded for readers, at most maxBytes. */
const RECENT_BYTES = 16 * 1024 * 1024;

export function createDiskStream(options: DiskStreamOptions): IngestStream {
  return new DiskStream(options);
}

class DiskReader implements StreamReader {
  readonly id: string;
  /** Last seq this reader committed. */
  committed: number;
  /** Next seq to hand out. */
  next: number;
  /** Records from `from` on handed out and not committed, in this process (crash-loop protection). */
  delivering?: Delivering;
  /** The same, left by the previous process: it died while delivering them. */
  restored?: Delivering;
  private readonly stream: DiskStream;

  constructor(stream: DiskStream, id: string, committed: number) {
    this.stream = stream;
    this.id = id;
    this.committed = committed;
    this.next = committed + 1;
  }

  read(maxSpans: number, signal?: AbortSignal): Promise<StreamRecord[]> {
    return this.stream.readFor(this, maxSpans, signal);
  }

  commit(seq: number): Promise<void> {
    return this.stream.commitFor(this, seq);
  }

  lag(): number {
    return this.stream.countAfter(this.committed).spans;
  }

  lagBytes(): number {
    return this.stream.countAfter(this.committed).bytes;
  }
}

export class DiskStream implements IngestStream {
  private readonly dir: string;
  private readonly fsync: FsyncMode;
  private readonly fsyncIntervalMs: number;
  private readonly maxBytes: number;
  private readonly segmentBytes: number;
  private readonly retryAfterMs: number;
  private readonly logger: Logger;
  private readonly io: DiskIo;
  private readonly options: DiskStreamOptions;
  private readonly quarantine: Quarantine;
  private readonly cursors: CursorStore;
  private readonly recent: RecentRecords;
  private readonly log: SegmentLog;
  /**
   * Encodes every record appended to this stream, one after the other in its buffer: the records queued
   * for the next group commit are that buffer's bytes, written as they are (no copy per record), and the
   * buffer of the group being written comes back to be filled again.
   */
  private readonly recordEncoder = new SpanEncoder();

  private state: 'new' | 'opening' | 'open' | 'sealed' | 'closed' = 'new';
  private unlock?: () => Promise<void>;
  private nextSeq = 1;
  /** Highest seq readers may see: written (and synced, with fsync: always). */
  private visibleSeq = 0;
  private pending: Pending[] = [];
  /** Bytes queued or being written. */
  private pendingBytes = 0;
  private flushScheduled = false;
  private flushing?: Promise<void>;
  /** Bytes held (files + queued) when an append was last refused for size; Infinity once space was freed. */
  private refusedAt = Infinity;
  /** File changes (writes, syncs, deletions) run one at a time, in order. */
  private chain: Promise<void> = Promise.resolve();
  private releaseScheduled = false;
  private readonly readers = new Map<string, DiskReader>();
  private waiters = new Set<() => void>();
  private timer?: NodeJS.Timeout;
  private refusedLoggedAt = new Map<string, number>();
  /** Why the last write failed, until one succeeds again (undefined: writes work). */
  private writeFailing: string | undefined;

  constructor(options: DiskStreamOptions) {
    this.options = options;
    this.dir = path.resolve(options.directory);
    this.fsync = options.fsync;
    this.fsyncIntervalMs = options.fsyncIntervalMs;
    this.maxBytes = options.maxBytes;
    this.segmentBytes =
      options.segmentBytes ?? Math.min(64 * 1024 * 1024, Math.max(64 * 1024, Math.floor(options.maxBytes / 16)));
    this.retryAfterMs = options.retryAfterMs ?? 1000;
    this.logger = options.logger;
    this.io = options.io ?? nodeIo;
    this.quarantine = new Quarantine(this.io, this.dir, this.logger, options.onQuarantine);
    this.cursors = new CursorStore(this.io, this.dir, this.logger, () => this.cursorSnapshot());
    this.recent = new RecentRecords(Math.min(RECENT_BYTES, options.maxBytes));
    this.log = new SegmentLog({ directory: this.dir, io: this.io, logger: this.logger, fsync: this.fsync, segmentBytes: this.segmentBytes });
  }

  // ---- open and recovery ------------------------------------------------------------------------

  async open(): Promise<void> {
    if (this.state !== 'new') throw new StartupError(`stream ${this.dir} was already opened`);
    this.state = 'opening';
    try {
      await this.io.mkdir(this.dir);
    } catch (err) {
      throw new StartupError(`cannot create stream directory ${this.dir}: ${(err as Error).message}`);
    }
    try {
      this.unlock = await lockDirectory(this.io, this.dir);
    } catch (err) {
      this.state = 'closed';
      throw err;
    }
    try {
      await this.recover();
    } catch (err) {
      await this.cursors.close();
      await this.unlock();
      this.state = 'closed';
      throw err instanceof StartupError ? err : new StartupError(`cannot recover stream ${this.dir}: ${(err as Error).message}`, { cause: err });
    }
    if (this.fsync === 'interval') {
      this.timer = setInterval(() => void this.syncIfDirty(), Math.max(1, this.fsyncIntervalMs));
      this.timer.unref();
    }
    this.state = 'open';
    this.notify();
    const held = this.countAfter(-1);
    this.logger.info('ingest stream opened', {
      directory: this.dir,
      fsync: this.fsync,
      segments: this.log.segments.length,
      records: held.records,
      spans: held.spans,
      bytes: held.bytes,
      readers: Object.fromEntries([...this.readers.values()].map((r) => [r.id, r.committed])),
    });
  }

  private async recover(): Promise<void> {
    const { cursors, delivering } = await loadCursors(this.io, this.dir, this.logger);
    if (this.options.consumers) {
      const keep = new Set(this.options.consumers);
      for (const id of [...cursors.keys()]) {
        if (!keep.has(id)) {
          this.logger.warn('dropping the cursor of a reader no longer configured', { reader: id, committed: cursors.get(id) });
          cursors.delete(id);
        }
      }
    }
    const minCursor = cursors.size > 0 ? Math.min(...cursors.values()) : -1;

    const bases: number[] = [];
    for (const name of await this.io.readdir(this.dir)) {
      const base = parseSegmentName(name);
      if (base !== undefined) bases.push(base);
      else if (name.endsWith('.seg.rewrite')) await this.io.unlink(path.join(this.dir, name)).catch(() => undefined);
    }
    bases.sort((a, b) => a - b);

    const ctx = { io: this.io, directory: this.dir, logger: this.logger, quarantine: this.quarantine };
    let lastSeq = 0;
    for (let i = 0; i < bases.length; i++) {
      // Every record of a segment has a seq below the next segment's name: a segment all readers
      // passed is deleted without reading it.
      if (i + 1 < bases.length && bases[i + 1] - 1 <= minCursor) {
        await this.io.unlink(path.join(this.dir, new Segment(this.dir, bases[i]).name));
        continue;
      }
      const segment = await recoverSegment(ctx, bases[i], i === bases.length - 1, lastSeq);
      if (segment.count === 0) {
        await this.io.unlink(segment.path);
        continue;
      }
      lastSeq = segment.lastSeq;
      this.log.adopt(segment);
    }

    // Never reuse a seq a reader may have committed, even if the record itself was lost.
    this.nextSeq = Math.max(lastSeq, minCursor) + 1;
    this.visibleSeq = this.nextSeq - 1;
    // Readers asked for before open() (the pipeline builds its runners first) are the same objects the
    // runners hold: give them their persisted position rather than replacing them.
    const oldest = this.oldestSeq();
    for (const r of this.readers.values()) {
      const seq = cursors.get(r.id);
      r.committed = seq ?? oldest - 1;
      r.next = r.committed + 1;
    }
    for (const [id, seq] of cursors) if (!this.readers.has(id)) this.readers.set(id, new DiskReader(this, id, seq));
    for (const r of this.readers.values()) {
      if (r.next < oldest) r.next = oldest;
      const d = delivering.get(r.id);
      if (d && d.from === r.committed + 1) r.restored = d;
    }
    await this.releaseConsumed();
    if (this.readers.size > cursors.size) await this.cursors.persist();
    await this.log.resumeNewest();
  }

  // ---- append -----------------------------------------------------------------------------------

  refusal(): Refusal | undefined {
    if (this.state !== 'open') return { message: this.notOpenMessage(), retryAfterMs: this.retryAfterMs };
    // At the bound every append is refused (something is held then, so the big-record exception below does
    // not apply); after a refusal for size, so is one of that size until segments are deleted (a stream
    // just under its bound would otherwise decode each request to refuse it).
    if (this.log.bytes + this.pendingBytes >= Math.min(this.maxBytes, this.refusedAt)) return { message: this.refuseFull(), retryAfterMs: this.retryAfterMs };
    return undefined;
  }

  private notOpenMessage(): string {
    return `ingest stream is ${this.state === 'sealed' ? 'shutting down' : 'not open'}`;
  }

  /** Why a full stream refuses; logged at most every 10 s. */
  private refuseFull(): string {
    this.logRefusal('full', 'ingest stream full: appends refused until exporters catch up', { maxBytes: this.maxBytes });
    return `ingest stream full (storage.max_bytes ${this.maxBytes} reached)`;
  }

  append(spans: Span[]): Promise<void> {
    if (this.state !== 'open') return Promise.reject(new RefusedError(this.notOpenMessage(), this.retryAfterMs));
    let record: { start: number; length: number };
    try {
      record = appendRecord(this.recordEncoder, spans);
    } catch (err) {
      return Promise.reject(err);
    }
    // Like the memory stream, a record larger than the whole bound is still taken when nothing is held,
    // so one big request is never refused forever.
    if (this.log.bytes + this.pendingBytes + record.length > this.maxBytes && !this.holdsNothing()) {
      this.recordEncoder.rewind(record.start);
      this.refusedAt = this.log.bytes + this.pendingBytes;
      return Promise.reject(new RefusedError(this.refuseFull(), this.retryAfterMs));
    }
    const seq = this.nextSeq++;
    stampSeq(this.recordEncoder.held(), seq, record.start);
    this.pendingBytes += record.length;
    const length = record.length;
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ seq, spans, length, resolve, reject });
      this.scheduleFlush();
    });
  }

  private holdsNothing(): boolean {
    return this.pending.length === 0 && !this.flushing && this.stats().records === 0;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.flushing) return;
    this.flushScheduled = true;
    // setImmediate rather than a microtask: requests completing in the same event-loop turn join one group.
    setImmediate(() => {
      this.flushScheduled = false;
      this.flushing = this.flushLoop()
        .catch((err) => this.logger.error('ingest stream flush failed', { error: err }))
        .finally(() => {
          this.flushing = undefined;
          if (this.pending.length > 0) this.scheduleFlush();
          this.notify();
        });
    });
  }

  private async flushLoop(): Promise<void> {
    while (this.pending.length > 0) {
      const group = this.pending;
      this.pending = [];
      // The queued records' bytes, in order: what the encoder holds is exactly `group` (a refused append
      // rewound its record).
      const bytes = this.recordEncoder.take();
      await this.exclusive(() => this.writeGroup(group, bytes));
    }
  }

  private async writeGroup(group: Pending[], bytes: Buffer): Promise<void> {
    const total = bytes.length;
    try {
      await this.log.write(group, bytes);
    } catch (err) {
      this.recordEncoder.giveBack(bytes);
      this.pendingBytes -= total;
      const code = (err as NodeJS.ErrnoException).code;
      const message = code === 'ENOSPC' || code === 'EDQUOT'
        ? 'ingest stream cannot write: disk full'
        : `ingest stream cannot write: ${(err as Error).message}`;
      this.writeFailing = message;
      this.logRefusal(code ?? 'write', message, { directory: this.dir, error: err });
      // Readers may have passed the open segment before the disk filled: no commit will come to free it.
      // Before the answer, so the client's retry finds the space.
      if (!this.log.needsTruncate) await this.releaseConsumed();
      const refused = new RefusedError(message, this.retryAfterMs);
      for (const p of group) p.reject(refused);
      return;
    }
    this.recordEncoder.giveBack(bytes);
    this.options.onGroupCommit?.(group.length);
    for (const p of group) this.recent.push(p.seq, p.spans, p.length);
    this.pendingBytes -= total;
    this.visibleSeq = group[group.length - 1].seq;
    if (this.writeFailing !== undefined) {
      this.writeFailing = undefined;
      this.logger.info('ingest stream writes again', { directory: this.dir });
    }
    for (const p of group) p.resolve();
    this.notify();
  }

  private syncIfDirty(): Promise<void> {
    return this.exclusive(() => this.log.syncIfDirty());
  }

  private exclusive(fn: () => Promise<void>): Promise<void> {
    const run = this.chain.then(fn);
    this.chain = run.catch((err) => this.logger.error('ingest stream file operation failed', { error: err }));
    return run;
  }

  private logRefusal(kind: string, msg: string, fields: Record<string, unknown>): void {
    const now = Date.now();
    const last = this.refusedLoggedAt.get(kind);
    if (last !== undefined && now - last < 10_000) return;
    this.refusedLoggedAt.set(kind, now);
    this.logger.warn(msg, fields);
  }

  // ---- readers ----------------------------------------------------------------------------------

  reader(consumerId: string): StreamReader {
    let r = this.readers.get(consumerId);
    if (!r) {
      // A new reader starts at the oldest retained record; its cursor is written at once so a restart
      // keeps that record for it even before its first commit.
      r = new DiskReader(this, consumerId, this.oldestSeq() - 1);
      this.readers.set(consumerId, r);
      if (this.state === 'open' || this.state === 'sealed') void this.cursors.persist();
    }
    return r;
  }

  /** @internal */
  async readFor(r: DiskReader, maxSpans: number, signal?: AbortSignal): Promise<StreamRecord[]> {
    const limit = Math.max(1, maxSpans);
    for (;;) {
      if (this.state === 'closed' || signal?.aborted) return [];
      if (r.next <= this.visibleSeq) {
        const records = await this.collect(r, limit);
        if (records.length === 0) continue;
        if (!this.options.deadLetter) return records;
        if (await this.guardCrashLoop(r, records)) continue;
        return records;
      }
      if (this.state === 'sealed' && this.pending.length === 0 && !this.flushing && !this.flushScheduled) return [];
      await this.changed(signal);
    }
  }

  /**
   * Crash-loop protection (options.deadLetter). Marks the records as being delivered; after a previous
   * process died delivering the same first record, narrows `records` to that record alone, and after
   * `maxAttempts` such deaths dead-letters it and commits it (returns true: the caller reads on).
   */
  private async guardCrashLoop(r: DiskReader, records: StreamRecord[]): Promise<boolean> {
    const from = r.committed + 1;
    if (r.delivering?.from === from) return false;
    const died = r.restored?.from === from ? r.restored.attempts : 0;
    const first = records[0];
    if (died > 0 && records.length > 1) {
      records.length = 1;
      r.next = first.seq + 1;
    }
    const deadLetter = this.options.deadLetter!;
    if (died >= deadLetter.maxAttempts) {
      const reason = `the process died ${died} times while this record was being delivered`;
      try {
        await deadLetter.write(r.id, first.spans, reason);
        this.logger.error('record dead-lettered: delivering it kept killing the process', { reader: r.id, seq: first.seq, spans: first.spans.length, attempts: died });
        r.restored = undefined;
        await this.commitFor(r, first.seq);
        return true;
      } catch (err) {
        this.logger.error('cannot dead-letter a record that keeps killing the process; delivering it again', { reader: r.id, seq: first.seq, error: err });
      }
    }
    r.delivering = { from, attempts: died + 1 };
    void this.cursors.persist();
    return false;
  }

  /** The next records for `r`, from memory when held there, else from its segment file. */
  private async collect(r: DiskReader, maxSpans: number): Promise<StreamRecord[]> {
    const held = this.recent.take(r.next, maxSpans);
    if (held) {
      if (held.length > 0) r.next = held[held.length - 1].seq + 1;
      return held;
    }
    const segment = this.log.holding(r.next);
    if (!segment) {
      r.next = this.visibleSeq + 1;
      return [];
    }
    const first = segment.indexFrom(r.next);
    let last = first;
    let spans = segment.spansAt(first);
    while (last + 1 < segment.count && segment.seqs[last + 1] < this.recent.firstSeq) {
      const n = segment.spansAt(last + 1);
      if (spans + n > maxSpans) break;
      if (segment.offsets[last + 1] + segment.lengths[last + 1] - segment.offsets[first] > MAX_DISK_READ) break;
      spans += n;
      last++;
    }
    // Move the position before reading, so a concurrent read of the same reader does not repeat these.
    r.next = segment.seqs[last] + 1;
    const start = segment.offsets[first];
    const buf = await this.log.read(segment, first, last);
    const out: StreamRecord[] = [];
    for (let i = first; i <= last; i++) {
      const p = segment.offsets[i] - start;
      const parsed = parseRecord(buf, p, p + segment.lengths[i]);
      try {
        if (parsed.kind !== 'ok' || parsed.seq !== segment.seqs[i]) throw new Error(parsed.kind === 'bad' ? parsed.reason : 'record changed on disk');
        out.push({ seq: parsed.seq, spans: decodeRecordSpans(buf, p, parsed.end) });
      } catch (err) {
        // Damaged after start-up (the start-up scan checked it): keep the bytes, skip the record.
        await this.quarantine
          .put({ segment: segment.name, offset: segment.offsets[i], length: segment.lengths[i], reason: (err as Error).message }, buf.subarray(p, p + segment.lengths[i]))
          .catch((qerr) => this.logger.error('cannot write the quarantine file', { error: qerr }));
      }
    }
    return out;
  }

  private changed(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        signal?.removeEventListener('abort', wake);
        this.waiters.delete(wake);
        resolve();
      };
      this.waiters.add(wake);
      signal?.addEventListener('abort', wake, { once: true });
    });
  }

  private notify(): void {
    if (this.waiters.size === 0) return;
    const waiters = this.waiters;
    this.waiters = new Set();
    for (const wake of waiters) wake();
  }

  async handOver(consumers: readonly string[]): Promise<void> {
    // A consumer new to this stream starts after the oldest commit of those it replaces: it gets what
    // any of them had not delivered, not the whole retained history.
    let from = Infinity;
    for (const r of this.readers.values()) from = Math.min(from, r.committed);
    if (from === Infinity) from = this.oldestSeq() - 1;
    const keep = new Set(consumers);
    for (const [id, r] of this.readers) {
      if (!keep.has(id)) {
        this.logger.warn('dropping the cursor of a reader no longer configured', { reader: id, committed: r.committed });
        this.readers.delete(id);
        continue;
      }
      r.next = r.committed + 1;
      // Handed over, not died delivering: no attempt counts against the record.
      r.delivering = undefined;
    }
    for (const id of consumers) if (!this.readers.has(id)) this.readers.set(id, new DiskReader(this, id, from));
    await this.cursors.persist();
    await this.exclusive(() => this.releaseConsumed());
  }

  /** @internal */
  commitFor(r: DiskReader, seq: number): Promise<void> {
    const upTo = Math.min(seq, this.visibleSeq);
    if (upTo <= r.committed) return Promise.resolve();
    r.committed = upTo;
    if (r.next <= upTo) r.next = upTo + 1;
    if (r.delivering && r.delivering.from <= upTo) r.delivering = undefined;
    const persisted = this.cursors.persist();
    if (!this.releaseScheduled) {
      this.releaseScheduled = true;
      // After the cursor write, so a restart never finds a cursor behind a deleted segment... which
      // would still be safe (it starts at the oldest retained record), but re-reads less this way.
      void persisted
        .then(() =>
          this.exclusive(() => {
            this.releaseScheduled = false;
            return this.releaseConsumed();
          }),
        )
        .catch(() => undefined); // logged by exclusive()
    }
    return persisted;
  }

  /** Deletes segments every reader committed, and forgets recent records likewise. */
  private async releaseConsumed(): Promise<void> {
    if (this.readers.size === 0) return;
    let min = Infinity;
    for (const r of this.readers.values()) min = Math.min(min, r.committed);
    this.recent.dropThrough(min);
    // The open segment is reused while it is small: deleting and recreating it on every catch-up would
    // add a file creation and a directory sync per exporter batch. Not while writes fail (disk full): the
    // stream's own delivered records may be what fills the disk, and deleting them is then the only way
    // space returns (a 1 MiB volume never fills a 64 MiB segment).
    await this.log.deleteThrough(min, (size) =>
      this.writeFailing !== undefined || size >= this.segmentBytes / 4 || this.log.bytes + this.pendingBytes >= this.maxBytes / 2);
    if (this.log.bytes + this.pendingBytes < this.refusedAt) this.refusedAt = Infinity;
  }

  private cursorSnapshot(): CursorState {
    const state: CursorState = { cursors: new Map(), delivering: new Map() };
    for (const r of this.readers.values()) {
      state.cursors.set(r.id, r.committed);
      if (r.delivering) state.delivering.set(r.id, r.delivering);
    }
    return state;
  }

  /** The oldest record still held (the next seq when none). */
  private oldestSeq(): number {
    return this.log.oldestSeq() ?? this.visibleSeq + 1;
  }

  // ---- stats, seal, close -----------------------------------------------------------------------

  /** @internal Records, spans and bytes held with seq > `seq`. */
  countAfter(seq: number): { records: number; spans: number; bytes: number } {
    return this.log.countAfter(seq);
  }

  stats(): { records: number; spans: number; bytes: number } {
    let min = Infinity;
    for (const r of this.readers.values()) min = Math.min(min, r.committed);
    return this.countAfter(min === Infinity ? -1 : min);
  }

  segments(): number {
    return this.log.segments.length;
  }

  health(): StreamHealth {
    const held = { bytes: this.log.bytes + this.pendingBytes, maxBytes: this.maxBytes };
    if (this.state !== 'open') return { writable: false, reason: this.state === 'sealed' ? 'shutting down' : `not open (${this.state})`, ...held };
    if (this.writeFailing !== undefined) return { writable: false, reason: this.writeFailing, ...held };
    return { writable: true, ...held };
  }

  seal(): void {
    if (this.state === 'open' || this.state === 'new' || this.state === 'opening') this.state = 'sealed';
    this.notify();
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    const wasOpen = this.state === 'open' || this.state === 'sealed';
    this.state = 'sealed';
    if (this.timer) clearInterval(this.timer);
    // Let queued appends finish (they resolve or are refused), then sync and release the files.
    while (this.flushing || this.flushScheduled || this.pending.length > 0) {
      if (this.flushing) await this.flushing;
      else await new Promise((resolve) => setImmediate(resolve));
    }
    if (wasOpen) {
      // Stopping cleanly is not dying: records in flight get no attempt counted.
      for (const r of this.readers.values()) r.delivering = undefined;
      // A clean shutdown syncs whatever the mode: it costs one fsync.
      await this.exclusive(() => this.log.closeActive(true));
      await this.cursors.persist();
    }
    await this.chain;
    await this.cursors.close();
    await this.unlock?.();
    this.state = 'closed';
    this.notify();
  }
}
