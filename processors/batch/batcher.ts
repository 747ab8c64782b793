// Gathers stream records into deliveries: a send when `send_batch_size` spans or about
// `send_batch_size_mib` of span memory are held, or `timeout` passed since the first one, whichever comes
// first; export calls capped at `send_batch_max_size`.
import type { Batcher } from '../../pipeline/component.ts';
import type { Span } from '../../model/span.ts';
import { estimateSpanBytes } from '../../pipeline/stream/size.ts';
import type { StreamReader, StreamRecord } from '../../pipeline/stream/stream.ts';
import type { BatchConfig } from './config.ts';

export class SizeOrTimeBatcher implements Batcher {
  readonly sync = false;
  private readonly config: BatchConfig;
  /** The memory trigger in bytes (0: none). */
  private readonly triggerBytes: number;
  /** Estimated bytes per span of the records read last (0 before the first): sizes the memory trigger. */
  private bytesPerSpan = 0;

  constructor(config: BatchConfig) {
    this.config = config;
    this.triggerBytes = config.send_batch_size_mib * 1024 * 1024;
  }

  /**
   * The size trigger in spans: send_batch_size, or fewer when that many spans of the size read last
   * would hold more than the memory trigger. The intake pacer counts deliveries in it too, so large
   * spans also shorten how far intake may run ahead of a healthy exporter.
   */
  get deliverySpans(): number {
    const size = this.config.send_batch_size;
    if (this.triggerBytes === 0 || this.bytesPerSpan === 0) return size;
    return Math.max(1, Math.min(size, Math.floor(this.triggerBytes / this.bytesPerSpan)));
  }

  async gather(reader: StreamReader, signal: AbortSignal): Promise<StreamRecord[]> {
    const { timeout } = this.config;
    const records = await reader.read(this.deliverySpans, signal);
    if (records.length === 0) return records;
    this.observe(records);
    if (timeout === 0) return records;
    let count = countSpans(records);
    if (count >= this.deliverySpans) return records;
    const deadline = new Deadline(signal, timeout);
    try {
      while (count < this.deliverySpans && !deadline.signal.aborted) {
        const more = await reader.read(this.deliverySpans - count, deadline.signal);
        if (more.length === 0) break;
        for (let i = 0; i < more.length; i++) records.push(more[i]);
        count += countSpans(more);
        this.observe(more);
      }
    } finally {
      deadline.clear();
    }
    return records;
  }

  split(spans: Span[]): Span[][] {
    const max = this.config.send_batch_max_size;
    if (max === 0 || spans.length <= max) return [spans];
    const parts: Span[][] = [];
    for (let i = 0; i < spans.length; i += max) parts.push(spans.slice(i, i + max));
    return parts;
  }

  /**
   * Learns the bytes per span from records just read. A request's spans are usually alike, so each record
   * is sampled at its first, middle and last span rather than estimated whole (the stream estimated
   * every span once already, on append).
   */
  private observe(records: readonly StreamRecord[]): void {
    if (this.triggerBytes === 0) return;
    let bytes = 0;
    let sampled = 0;
    for (let i = 0; i < records.length; i++) {
      const spans = records[i].spans;
      const n = spans.length;
      if (n === 0) continue;
      bytes += estimateSpanBytes(spans[0]);
      sampled++;
      if (n > 2) { bytes += estimateSpanBytes(spans[n >> 1]); sampled++; }
      if (n > 1) { bytes += estimateSpanBytes(spans[n - 1]); sampled++; }
    }
    if (sampled > 0) this.bytesPerSpan = bytes / sampled;
  }
}

/** Node's longest timer. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A signal that aborts when `outer` does or `ms` passed, whichever comes first, and that lets go of its
 * timer and its listener as soon as the gathering ends. (Before: `AbortSignal.any` over
 * `AbortSignal.timeout`, whose composite signal does bookkeeping on every listener a waiting read adds
 * and removes, and whose timer ran on after an early send; measured in docs/performance.md, round 0350.)
 */
class Deadline {
  readonly #controller = new AbortController();
  readonly #outer: AbortSignal;
  readonly #timer: NodeJS.Timeout;
  readonly #abort = () => this.#controller.abort();

  constructor(outer: AbortSignal, ms: number) {
    this.#outer = outer;
    if (outer.aborted) this.#controller.abort();
    else outer.addEventListener('abort', this.#abort, { once: true });
    // Unreferenced, as AbortSignal.timeout's timer was: a pending gathering alone does not keep the
    // process alive. Node fires a timer longer than its maximum (~24.8 days) after 1 ms: clamp instead.
    this.#timer = setTimeout(this.#abort, Math.min(ms, MAX_TIMER_MS)).unref();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#outer.removeEventListener('abort', this.#abort);
  }
}

function countSpans(records: StreamRecord[]): number {
  let n = 0;
  for (let i = 0; i < records.length; i++) n += records[i].spans.length;
  return n;
}
