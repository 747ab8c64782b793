// Batches as JSON lines into output buffers that are used again once the caller is done with them.
//
// Why: a fresh buffer per batch is ~1.4 MB for 1024 spans. That is
// external memory V8 counts towards its GC heuristics, a malloc and a free per batch, and fresh
// pages the kernel has to fault in and zero before the encoder writes them. A writer that hands the
// bytes back after its write (the file exporter) lets the next batch go into the same buffer: measured
// 1415 -> 0 B of external memory per span; encode CPU in-process is unchanged within noise
// (docs/performance.md, round 0380), the gain is the allocation and GC pressure the daemon no longer carries.
import type { Span } from '../../model/span.ts';
import { SizeGuess } from '../bytes/output-buffer.ts';
import { writeBatchJsonLines, type JsonEncodeOptions } from './encode-json.ts';
import { KeyMemory } from '../bytes/piece.ts';

/** A buffer bigger than this (a batch of huge spans) is let go rather than kept for the next batch. */
const KEEP_AT_MOST = 16 * 1024 * 1024;
/**
 * A buffer given back is used again only while it is at most this many times what the batch is expected
 * to need (or at most SMALL_ENOUGH): one grown by a batch of huge spans is let go once batches are normal
 * again, instead of keeping the burst's size for good.
 */
const OVERSIZE = 4;
const SMALL_ENOUGH = 1024 * 1024;
/** Buffers lent and not given back yet that are still recognised by release(); older ones are forgotten. */
const LENT_AT_MOST = 4;

export class BatchLinesEncoder {
  private readonly options: JsonEncodeOptions | undefined;
  /** Given back and free for the next batch. */
  private spare: Buffer | undefined;
  /** The whole buffers behind the views handed out and not released yet. */
  private lent: Buffer[] = [];
  /** Attribute keys as written in earlier batches. */
  private readonly keys = new KeyMemory();
  /** The next batch's buffer size, from the bytes per span the last one needed. */
  private readonly size = new SizeGuess(1024);

  constructor(options?: JsonEncodeOptions) {
    this.options = options;
  }

  /**
   * The spans as JSON lines, each record followed by `\n`. The result is a view of a buffer
   * this encoder may write the next batch into once the view has been passed to release(): keep no
   * reference to it (or to a view of it) after that.
   */
  encode(spans: readonly Span[]): Buffer {
    if (spans.length === 0) return Buffer.alloc(0);
    const spare = this.spare;
    this.spare = undefined;
    const fits = spare !== undefined && spare.length <= Math.max(SMALL_ENOUGH, OVERSIZE * this.size.bytesFor(spans.length, 256));
    const w = writeBatchJsonLines(spans, this.options, fits ? spare : undefined, this.keys, this.size);
    if (w.buf.length <= KEEP_AT_MOST) {
      if (this.lent.length >= LENT_AT_MOST) this.lent.shift();
      this.lent.push(w.buf);
    }
    return w.bytes();
  }

  /** Gives back bytes returned by encode(): the caller is done with them. Anything else is ignored. */
  release(bytes: Buffer): void {
    const lent = this.lent;
    for (let i = 0; i < lent.length; i++) {
      // Same memory, not merely the same ArrayBuffer: a small buffer may be a slice of Node's shared pool.
      if (lent[i].buffer === bytes.buffer && lent[i].byteOffset === bytes.byteOffset) {
        const whole = lent[i];
        lent.splice(i, 1);
        if (this.spare === undefined || whole.length > this.spare.length) this.spare = whole;
        return;
      }
    }
  }
}
