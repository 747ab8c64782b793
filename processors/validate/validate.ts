// The `validate` processor: tracing-API drafts -> accepted spans (de-duplicated) + rejections
// (ingest-api.md §4, §5), or, for batches decoded straight to spans (OTLP), the otlp.md receiver rules.
import type { Rejection, SpanDraft, WorkingBatch } from '../../model/batch.ts';
import type { SyncProcessor } from '../../pipeline/component.ts';
import type { Span } from '../../model/span.ts';
import { RandomIds } from '../../model/ids.ts';
import { OtlpRules } from './otlp-rules.ts';
import { checkDraft, newLineage } from './tracing-span.ts';

export class ValidateProcessor implements SyncProcessor {
  readonly sync = true as const;
  private readonly otlpRules = new OtlpRules();
  private readonly random = new RandomIds();

  process(batch: WorkingBatch): void {
    if (batch.drafts !== undefined) validateDrafts(batch, batch.drafts, this.random);
    else validateDecoded(batch, this.otlpRules);
  }
}

/**
 * A rejection entry (§5.2): trace_id / span_id as sent, present only when they were strings. Keys are
 * inserted in the documented order, since the receiver serialises the entry as it is.
 */
export function rejection(index: number, path: string, traceId: unknown, spanId: unknown, reason: string): Rejection {
  const entry = { index, path } as Rejection;
  if (typeof traceId === 'string') entry.trace_id = traceId;
  if (typeof spanId === 'string') entry.span_id = spanId;
  entry.reason = reason;
  return entry;
}

function draftRejection(draft: SpanDraft, reason: string): Rejection {
  const v = draft.value;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return rejection(draft.index, draft.path, 0, 0, reason);
  const o = v as Record<string, unknown>;
  return rejection(draft.index, draft.path, o.trace_id, o.span_id, reason);
}

/**
 * Drafts are in index order, so rejections come out in index order. Duplicates (same normalised trace
 * and span id) collapse: the later one's data at the first one's position (§5.3).
 */
function validateDrafts(batch: WorkingBatch, drafts: SpanDraft[], random: RandomIds): void {
  const spans: Span[] = [];
  const indexes: number[] = [];
  const rejections: Rejection[] = [];
  const lineage = newLineage(drafts.length, random);
  // Position in `spans` by span id; a span id seen in two traces (rare) goes to `byBoth`, keyed by both
  // ids. Keying every span by span id alone spares building and hashing one concatenated key per span.
  const bySpanId = new Map<string, number>();
  let byBoth: Map<string, number> | undefined;
  for (let i = 0; i < drafts.length; i++) {
    const draft = drafts[i];
    const result = checkDraft(draft, lineage);
    if (typeof result === 'string') {
      rejections.push(draftRejection(draft, result));
      continue;
    }
    let at = bySpanId.get(result.spanId);
    if (at === undefined) {
      bySpanId.set(result.spanId, spans.length);
    } else if (spans[at].traceId !== result.traceId) {
      const key = result.traceId + result.spanId;
      byBoth ??= new Map();
      at = byBoth.get(key);
      if (at === undefined) byBoth.set(key, spans.length);
    }
    if (at === undefined) {
      spans.push(result);
      indexes.push(draft.index);
    } else {
      spans[at] = result;
    }
  }
  batch.spans = spans;
  batch.indexes = indexes;
  batch.rejections = rejections;
}

/** OTLP: bad spans move to rejections (index = position); no de-duplication. */
function validateDecoded(batch: WorkingBatch, rules: OtlpRules): void {
  const input = batch.spans;
  const n = input.length;
  // Nearly every request is all valid: the accepted spans are then the input array itself, and the
  // indexes one array of the right size. Both lists grew by push before (~40 B/span of garbage, the
  // backing stores re-allocated as they grew); a copy is made only from the first rejection on.
  let spans: Span[] = input;
  const indexes: number[] = new Array<number>(n);
  let accepted = 0;
  const hadRejections = batch.rejections !== undefined && batch.rejections.length > 0;
  const rejections: Rejection[] = hadRejections ? batch.rejections : [];
  for (let i = 0; i < n; i++) {
    const span = input[i];
    const reason = rules.problem(span);
    if (reason === undefined) {
      if (spans !== input) spans.push(span);
      indexes[accepted++] = i;
      continue;
    }
    if (spans === input) spans = input.slice(0, i);
    rejections.push(rejection(i, `spans[${i}]`, span.traceId, span.spanId, reason));
  }
  indexes.length = accepted;
  // The codec may have rejected spans it could not decode at all; keep the list in index order.
  if (hadRejections) rejections.sort(byIndex);
  batch.spans = spans;
  batch.indexes = indexes;
  batch.rejections = rejections;
}

function byIndex(a: Rejection, b: Rejection): number {
  return a.index - b.index;
}
