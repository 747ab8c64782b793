// The ingest stream: the point of acknowledgement (ARCHITECTURE.md). A receiver answers success only
// after `append` resolved; from then on every reader (one per exporter) gets each record at least once.
import type { Refusal } from '../errors.ts';
import type { Span } from '../../model/span.ts';

export interface StreamRecord {
  /** Increasing per stream, never reused. */
  seq: number;
  spans: Span[];
}

export interface IngestStream {
  /** Opens or recovers the stream (a disk stream replays from each reader's cursor). */
  open(): Promise<void>;
  /**
   * Appends one record (one accepted request). Resolves once it is as safe as the stream promises
   * (memory: held; disk with fsync always: on disk). Rejects with RefusedError when full or closed:
   * then nothing was appended.
   *
   * `wireBytes`, when given, is the size of what the client sent for these spans (the request body,
   * decompressed, in proportion to the spans accepted). A stream bounded by an estimate of memory may
   * take it instead of walking every span (pipeline/stream/size.ts).
   */
  append(spans: Span[], wireBytes?: number): Promise<void>;
  /**
   * Why any append would be refused now (the stream is at its bound, or closed), or undefined. Receivers
   * ask before decoding a request: under overload a refusal then costs no decoding or processing.
   */
  refusal(): Refusal | undefined;
  /** The reader for one consumer (an exporter id); created on first call, cursor kept across calls. */
  reader(consumerId: string): StreamReader;
  /**
   * Its readers change hands (a reload replaced the runners; none reads while this runs): readers of
   * consumers not in `consumers` are dropped, so what only they held is released; every other reader
   * starts again after its last commit, so records handed out and not committed are read again (at
   * least once); and a consumer new to the stream starts after the oldest commit of the readers there
   * were, so it gets everything some exporter had not delivered yet.
   */
  handOver(consumers: readonly string[]): Promise<void>;
  /** Spans and bytes held and not yet committed by every reader. */
  stats(): { records: number; spans: number; bytes: number };
  /** Whether appends can be written now, and how full the stream is (the health check). */
  health(): StreamHealth;
  /** Segment files (a disk stream), read when the metrics are scraped. */
  segments?(): number;
  /** Stops accepting appends; readers may still drain what is held. */
  seal(): void;
  close(): Promise<void>;
}

export interface StreamHealth {
  /** False while sealed or closed, not yet open, or (disk) while writes fail; `reason` says which. */
  writable: boolean;
  reason?: string;
  /** What counts against `maxBytes` now (held, and for the disk stream also queued). */
  bytes: number;
  maxBytes: number;
}

export interface StreamReader {
  /**
   * Resolves with the next records past this reader's position (at least one, at most about `maxSpans`
   * spans, whole records), waiting for an append if there is none. Resolves with [] when `signal` aborts
   * or the stream is sealed and drained.
   */
  read(maxSpans: number, signal?: AbortSignal): Promise<StreamRecord[]>;
  /** Records up to and including `seq` are delivered: they may be released once every reader passed them. */
  commit(seq: number): Promise<void>;
  /** Spans appended and not yet committed by this reader. */
  lag(): number;
  /** Bytes of the records appended and not yet committed by this reader (read when the metrics are scraped). */
  lagBytes?(): number;
}
