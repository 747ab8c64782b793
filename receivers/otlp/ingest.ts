// What OTLP/HTTP and OTLP/gRPC share after decoding: the receiver rules (otlp.md), then the pipeline's
// one call; it decides between "nothing to do", "every span rejected", refusal and acceptance, and
// builds the partial_success message. Transport-specific answers are built from the returned outcome.
import type { IngestConsumer } from '../../pipeline/component.ts';
import type { Logger } from '../../pipeline/log.ts';
import type { RefusalCause } from '../../pipeline/errors.ts';
import { NO_RECEIVER_METRICS, type ReceiverMetrics } from '../../pipeline/telemetry/metrics.ts';
import { refusedByReason } from '../common/refusal.ts';
import type { Span } from '../../model/span.ts';
import { keptShare } from '../../pipeline/stream/size.ts';
import type { PartialSuccess } from '../../codec/otlp/index.ts';
import { checkOtlpSpans, type CheckedOtlpSpans, type OtlpRules } from '../../codec/otlp/rules.ts';

/** Reasons listed in a partial_success or error message (otlp.md). */
/** Ids echoed in a message are cut to this many characters: they came from the client, any length. */
const MAX_ID_CHARS = 64;

export type IngestOutcome =
  | { kind: 'accepted'; partial?: PartialSuccess }
  | { kind: 'all_rejected'; message: string }
  | { kind: 'refused'; status: 429 | 503; message: string; retryAfterMs: number; refusedBy?: RefusalCause }
  | { kind: 'failed'; message: string };

function cut(id: string | undefined): string {
  if (id === undefined) return '?';
  return id.length > MAX_ID_CHARS ? id.slice(0, MAX_ID_CHARS) + '…' : id;
}

/** `<trace_id>/<span_id>: <reason>` for the rejections kept (the first ten), `; `-separated, and how many more. */
export function rejectionMessage(checked: CheckedOtlpSpans): string {
  const parts: string[] = [];
  for (const r of checked.rejections) parts.push(`${cut(r.trace_id)}/${cut(r.span_id)}: ${r.reason}`);
  let message = parts.join('; ');
  if (checked.rejected > parts.length) message += `; and ${checked.rejected - parts.length} more`;
  return message;
}

/**
 * Checks the decoded spans and hands the valid ones to the consumer. Zero spans: accepted with nothing
 * appended. Every span rejected: nothing appended. Otherwise the accepted ones are appended and listed
 * as accepted only once every append resolved. `bodyBytes`: the size of the (decompressed) request body
 * they were decoded from. `rules`: the receiver's own (they remember the last ids that passed).
 * `project`: of the key the request was accepted with (the pipeline gives it to every span). `metrics`:
 * the receiver's, counting accepted and refused spans (the request itself is counted by the transport,
 * which decides the answer).
 */
export async function ingest(
  consumer: IngestConsumer, rules: OtlpRules, decoded: Span[], bodyBytes: number, logger: Logger, project?: string,
  metrics: ReceiverMetrics = NO_RECEIVER_METRICS,
): Promise<IngestOutcome> {
  if (decoded.length === 0) return { kind: 'accepted' };
  const checked = checkOtlpSpans(decoded, rules);
  const { spans, rejected } = checked;
  metrics.refusedSpans('invalid', rejected);
  if (spans.length === 0) {
    return { kind: 'all_rejected', message: `every span was rejected: ${rejectionMessage(checked)}` };
  }
  try {
    const refused = await consumer.consume({ origin: 'otlp', spans, project }, keptShare(bodyBytes, spans.length, decoded.length));
    if (refused !== undefined) {
      metrics.refusedSpans(refusedByReason(refused.refusedBy), spans.length);
      return { kind: 'refused', status: refused.status, message: refused.message, retryAfterMs: refused.retryAfterMs, refusedBy: refused.refusedBy };
    }
  } catch (error) {
    logger.error('append failed', { error });
    return { kind: 'failed', message: 'internal error while appending spans' };
  }
  metrics.accepted(spans.length);
  if (rejected === 0) return { kind: 'accepted' };
  return { kind: 'accepted', partial: { rejectedSpans: rejected, errorMessage: rejectionMessage(checked) } };
}

/** Whole seconds for `Retry-After`, at least 1. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
