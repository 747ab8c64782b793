import type { JsonSchema } from '../../pipeline/component.ts';
import { duration, integer, object } from '../../pipeline/schema.ts';

export interface BatchConfig {
  /** Spans that trigger a send: a trigger, not a cap. */
  send_batch_size: number;
  /** Estimated MiB of span memory that trigger a send, whichever of the two triggers comes first; 0: none. */
  send_batch_size_mib: number;
  /** Milliseconds: the longest wait before a partial batch is sent; 0 sends at once. */
  timeout: number;
  /** Cap per export call (larger batches are split); 0: none. */
  send_batch_max_size: number;
}

/**
 * The default trigger: 1024 spans, not the Collector's 8192. A batch stays alive on the heap until its
 * export is done, and V8's young-generation collector copies what is alive at every scavenge; 8192 decoded
 * spans (~25 MB) made that copying a large part of the daemon's work. Measured, docs/decisions/0360.
 */
export const DEFAULT_SEND_BATCH_SIZE = 1024;

/**
 * The default memory trigger, for the same reason as the span count above. LLM-call spans carry a few
 * KB of conversation each: 1024 of them are ~24 MB by the stream's estimate, and deliveries of 2-3 MiB
 * (90-130 such spans) measured 15-20% less CPU, half the RSS and half the p99. 1024 ordinary spans are
 * ~2.4 MiB, below it: their deliveries stay at 1024, which the Kafka exporter's throughput needs.
 * docs/decisions/0460.
 */
export const DEFAULT_SEND_BATCH_SIZE_MIB = 3;

export const schema: JsonSchema = object({
  send_batch_size: integer(DEFAULT_SEND_BATCH_SIZE, 1),
  send_batch_size_mib: integer(DEFAULT_SEND_BATCH_SIZE_MIB, 0),
  timeout: duration('200ms'),
  send_batch_max_size: integer(0, 0),
});

/** The cross-key rule the schema cannot say. */
export function checkBatchConfig(config: BatchConfig): Array<{ key: string; message: string }> {
  if (config.send_batch_max_size !== 0 && config.send_batch_max_size < config.send_batch_size) {
    return [{ key: 'send_batch_max_size', message: 'must be 0 or >= send_batch_size' }];
  }
  return [];
}
