// Gathers stream records into deliveries: a send when `send_batch_size` spans are held or `timeout`
// passed since the first one, whichever comes first; export calls capped at `send_batch_max_size`.
import type { Batcher } from '../../pipeline/component.ts';
import type { Span } from '../../pipeline/span.ts';
import type { StreamReader, StreamRecord } from '../../pipeline/stream/stream.ts';
import type { BatchConfig } from './config.ts';

export class SizeOrTimeBatcher implements Batcher {
  readonly sync = false;
  private readonly config: BatchConfig;

  constructor(config: BatchConfig) {
    this.config = config;
  }

  get deliverySpans(): number {
    return this.config.send_batch_size;
  }

  async gather(reader: StreamReader, signal: AbortSignal): Promise<StreamRecord[]> {
    const { send_batch_size: size, timeout } = this.config;
    const records = await reader.read(size, signal);
    if (records.length === 0 || timeout === 0) return records;
    let count = countSpans(records);
    if (count >= size) return records;
    const deadline = new Deadline(signal, timeout);
    try {
      while (count < size && !deadline.signal.aborted) {
        const more = await reader.read(size - count, deadline.signal);
        if (more.length === 0) break;
        for (let i = 0; i < more.length; i++) records.push(more[i]);
        count += countSpans(more);
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
}

/** Node's longest timer. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A signal that aborts when `outer` does or `ms` passed, whichever comes first, and that lets go of its
 * timer and its listener as soon as the gathering ends. (Before: `AbortSignal.any` over
 * `AbortSignal.timeout`, whose composite signal does bookkeeping on every listener a waiting read adds
 * and removes, and whose timer ran on after an early send; measured in docs/decisions/0350.)
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
