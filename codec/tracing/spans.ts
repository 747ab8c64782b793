// The tracing API's spans at the receiver's edge (ingest-api.md §3-§5): a body whose top-level shape was
// checked -> the accepted spans in canonical form, de-duplicated, and the rejected ones with their
// reasons. The processors after it see only canonical spans.
import type { Rejection, SpanDraft, TracingBody } from '../../model/batch.ts';
import { RandomIds } from '../../model/ids.ts';
import { isJsonObject } from '../../model/json-object.ts';
import type { Span } from '../../model/span.ts';
import { checkDraft, newLineage, type Lineage } from './check-span.ts';
import { treeDrafts } from './tree.ts';

export interface CheckedSpans {
  /** Accepted spans in request order, de-duplicated (§5.3). */
  spans: Span[];
  /** In request order. */
  rejections: Rejection[];
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
  if (!isJsonObject(v)) return rejection(draft.index, draft.path, 0, 0, reason);
  return rejection(draft.index, draft.path, v.trace_id, v.span_id, reason);
}

/**
 * Collects accepted spans: a repeated span (same normalised trace and span id) takes the first one's
 * position with the later one's data (§5.3).
 */
class Accepted {
  readonly spans: Span[] = [];
  // Position in `spans` by span id; a span id seen in two traces (rare) goes to `byBoth`, keyed by both
  // ids. Keying every span by span id alone spares building and hashing one concatenated key per span.
  readonly #bySpanId = new Map<string, number>();
  #byBoth: Map<string, number> | undefined;

  add(span: Span): void {
    const spans = this.spans;
    let at = this.#bySpanId.get(span.spanId);
    if (at === undefined) {
      this.#bySpanId.set(span.spanId, spans.length);
    } else if (spans[at].traceId !== span.traceId) {
      const key = span.traceId + span.spanId;
      this.#byBoth ??= new Map();
      at = this.#byBoth.get(key);
      if (at === undefined) this.#byBoth.set(key, spans.length);
    }
    if (at === undefined) spans.push(span);
    else spans[at] = span;
  }
}

/** Checks tracing API bodies for one receiver (which owns the random-id pool for nameless spans). */
export class TracingSpans {
  readonly #random = new RandomIds();

  check(body: TracingBody): CheckedSpans {
    return body.form === 'flat' ? this.#flat(body.spans) : this.#tree(body.traces);
  }

  /** The flat form: one draft object, reused, since a flat span inherits nothing. */
  #flat(entries: unknown[]): CheckedSpans {
    const accepted = new Accepted();
    const rejections: Rejection[] = [];
    const lineage = newLineage(entries.length, this.#random);
    const draft: SpanDraft = {
      index: 0, path: '', value: undefined, nodeName: undefined, parent: undefined, traceKey: undefined, invalidSpans: undefined,
    };
    for (let i = 0; i < entries.length; i++) {
      draft.index = i;
      draft.value = entries[i];
      const result = checkDraft(draft, lineage);
      if (typeof result !== 'string') accepted.add(result);
      else {
        draft.path = 'spans[' + i + ']';
        rejections.push(draftRejection(draft, result));
      }
    }
    return { spans: accepted.spans, rejections };
  }

  /** The tree form: drafts in pre-order, each knowing what it inherits (§3.3). */
  #tree(traces: Record<string, unknown>): CheckedSpans {
    const drafts = treeDrafts(traces);
    const accepted = new Accepted();
    const rejections: Rejection[] = [];
    const lineage: Lineage = newLineage(drafts.length, this.#random);
    for (let i = 0; i < drafts.length; i++) {
      const result = checkDraft(drafts[i], lineage);
      if (typeof result === 'string') rejections.push(draftRejection(drafts[i], result));
      else accepted.add(result);
    }
    return { spans: accepted.spans, rejections };
  }
}
