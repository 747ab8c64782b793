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

  async gather(reader: StreamReader, signal: AbortSignal): Promise<StreamRecord[]> {
    const { send_batch_size: size, timeout } = this.config;
    const records = await reader.read(size, signal);
    if (records.length === 0 || timeout === 0) return records;
    let count = countSpans(records);
    if (count >= size) return records;
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(timeout)]);
    while (count < size && !deadline.aborted) {
      const more = await reader.read(size - count, deadline);
      if (more.length === 0) break;
      for (const r of more) records.push(r);
      count += countSpans(more);
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

function countSpans(records: StreamRecord[]): number {
  let n = 0;
  for (const r of records) n += r.spans.length;
  return n;
}
