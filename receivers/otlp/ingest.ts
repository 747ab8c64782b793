// What OTLP/HTTP and OTLP/gRPC share after decoding: run the synchronous processors, decide between
// "nothing to do", "every span rejected", refusal and acceptance, and build the partial_success
// message (otlp.md). Transport-specific answers are built from the returned outcome.
import type { WorkingBatch } from '../../model/batch.ts';
import type { IngestConsumer } from '../../pipeline/component.ts';
import { RefusedError } from '../../pipeline/errors.ts';
import type { Logger } from '../../pipeline/log.ts';
import type { Span } from '../../model/span.ts';
import { keptShare } from '../../pipeline/stream/size.ts';
import type { PartialSuccess } from '../../codec/otlp/index.ts';

/** Reasons listed in a partial_success or error message (otlp.md). */
const MAX_LISTED_REASONS = 10;
/** Ids echoed in a message are cut to this many characters: they came from the client, any length. */
const MAX_ID_CHARS = 64;

export type IngestOutcome =
  | { kind: 'accepted'; partial?: PartialSuccess }
  | { kind: 'all_rejected'; message: string }
  | { kind: 'refused'; status: 429 | 503; message: string; retryAfterMs: number }
  | { kind: 'failed'; message: string };

function cut(id: string | undefined): string {
  if (id === undefined) return '?';
  return id.length > MAX_ID_CHARS ? id.slice(0, MAX_ID_CHARS) + '…' : id;
}

/** `<trace_id>/<span_id>: <reason>` for the first ten rejections, `; `-separated. */
export function rejectionMessage(batch: WorkingBatch): string {
  const rejections = batch.rejections;
  const n = Math.min(rejections.length, MAX_LISTED_REASONS);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = rejections[i];
    parts.push(`${cut(r.trace_id)}/${cut(r.span_id)}: ${r.reason}`);
  }
  let message = parts.join('; ');
  if (rejections.length > n) message += `; and ${rejections.length - n} more`;
  return message;
}

/**
 * Runs the decoded spans through the consumer. Zero spans: accepted with nothing appended. Every span
 * rejected: nothing appended. Otherwise the accepted ones are appended and listed as accepted only once
 * every append resolved. `bodyBytes`: the size of the (decompressed) request body they were decoded from.
 */
export async function ingest(consumer: IngestConsumer, spans: Span[], bodyBytes: number, logger: Logger): Promise<IngestOutcome> {
  if (spans.length === 0) return { kind: 'accepted' };
  const decoded = spans.length;
  const batch: WorkingBatch = { origin: 'otlp', spans, rejections: [] };
  consumer.prepare(batch);
  const rejected = batch.rejections.length;
  if (batch.spans.length === 0) {
    return { kind: 'all_rejected', message: `every span was rejected: ${rejectionMessage(batch)}` };
  }
  try {
    await consumer.append(batch.spans, keptShare(bodyBytes, batch.spans.length, decoded));
  } catch (error) {
    if (error instanceof RefusedError) {
      return { kind: 'refused', status: error.status, message: error.message, retryAfterMs: error.retryAfterMs };
    }
    logger.error('append failed', { error });
    return { kind: 'failed', message: 'internal error while appending spans' };
  }
  if (rejected === 0) return { kind: 'accepted' };
  return { kind: 'accepted', partial: { rejectedSpans: rejected, errorMessage: rejectionMessage(batch) } };
}

/** Whole seconds for `Retry-After`, at least 1. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
