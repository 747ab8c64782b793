// The receiver rules of otlp.md ("what a span must be"), checked on spans an OTLP codec decoded straight
// into canonical form. The codec hands over the hex of whatever bytes arrived, so ids are checked here.
import { isCanonicalHexId, isZeroSpanId } from '../../model/ids.ts';
import type { Rejection } from '../../model/batch.ts';
import type { Span } from '../../model/span.ts';

function isIntIn(v: unknown, min: number, max: number): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
}

/**
 * The receiver rules for one OTLP receiver. It remembers the last trace id and parent id that
 * passed: spans of a request mostly share their trace id (the decoder even hands out one string
 * instance for it, decode-id.ts) and siblings share a parent, so most checks are a string comparison (a
 * pointer comparison for the shared instance) instead of a scan of 32 or 16 characters, which was most
 * of this check's time. Exact: validity is a function of the string's content, and only valid ids are
 * remembered.
 */
export class OtlpRules {
  private lastTraceId = '';
  private lastParentId = '';

  /**
   * The rejection reason for a decoded span, or undefined when it may pass. An empty or all-zero parent
   * id means "root" and is removed from the span here (the one change this makes).
   */
  problem(span: Span): string | undefined {
    const traceId = span.traceId;
    if (traceId !== this.lastTraceId || traceId === '') {
      if (!isCanonicalHexId(traceId, 32)) return 'invalid trace_id';
      this.lastTraceId = traceId;
    }
    if (!isCanonicalHexId(span.spanId, 16)) return 'invalid span_id';
    const parent = span.parentId;
    if (parent !== undefined && (parent !== this.lastParentId || parent === '')) {
      if (parent === '' || isZeroSpanId(parent)) delete span.parentId;
      else if (!isCanonicalHexId(parent, 16)) return 'invalid parent_id';
      else this.lastParentId = parent;
    }
    return otherProblem(span);
  }
}

/** The rules past the ids. */
function otherProblem(span: Span): string | undefined {
  if (typeof span.startNs !== 'bigint' || span.startNs <= 0n) return 'missing start_time';
  if (typeof span.endNs !== 'bigint' || span.endNs <= 0n) return 'missing end_time';
  if (!isIntIn(span.kind, 0, 5)) return 'invalid span_kind';
  if (!isIntIn(span.status?.code, 0, 2)) return 'invalid status_code';
  const events = span.events;
  if (events !== undefined) {
    for (let i = 0; i < events.length; i++) {
      const name = events[i].name;
      if (typeof name !== 'string' || name.length === 0) return `invalid events[${i}].name: empty`;
    }
  }
  const links = span.links;
  if (links !== undefined) {
    for (let i = 0; i < links.length; i++) {
      if (!isCanonicalHexId(links[i].traceId, 32)) return `invalid links[${i}].trace_id`;
      if (!isCanonicalHexId(links[i].spanId, 16)) return `invalid links[${i}].span_id`;
    }
  }
  return undefined;
}

/** Rejections kept by checkOtlpSpans: an OTLP answer names the first few; the rest are only counted. */
export const REJECTIONS_KEPT = 10;

/** The spans that pass the rules, in order; how many did not, and the first REJECTIONS_KEPT of those
 *  (index: position in the request). */
export interface CheckedOtlpSpans {
  spans: Span[];
  rejected: number;
  rejections: Rejection[];
}

/** Applies the rules to decoded spans. No de-duplication (otlp.md). */
export function checkOtlpSpans(input: Span[], rules: OtlpRules): CheckedOtlpSpans {
  // Nearly every request is all valid: the accepted spans are then the input array itself; a copy is
  // made only from the first rejection on.
  let spans = input;
  let rejected = 0;
  const rejections: Rejection[] = [];
  for (let i = 0; i < input.length; i++) {
    const span = input[i];
    const reason = rules.problem(span);
    if (reason === undefined) {
      if (spans !== input) spans.push(span);
      continue;
    }
    if (spans === input) spans = input.slice(0, i);
    if (rejected++ < REJECTIONS_KEPT) rejections.push({ index: i, path: `spans[${i}]`, trace_id: span.traceId, span_id: span.spanId, reason });
  }
  return { spans, rejected, rejections };
}
