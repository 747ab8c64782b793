// For differential tests of the namespace processor's paths (full, fast, planned): run the same spans
// through each and compare what namespace decides.
import { AttributeList } from '../../model/attributes/list.ts';
import type { Span } from '../../model/span.ts';

/** A copy a path may rewrite without touching the original (namespace replaces the attribute Map). */
export function cloneForNamespace(s: Span): Span {
  return { ...s, attributes: new AttributeList(s.attributes) };
}

/** What namespace decided for a span: its attributes in order, the span fields it sets, its references. */
export function namespaceOutcome(s: Span) {
  return {
    attributes: [...s.attributes],
    fields: [s.spanType, s.traceType, s.sessionId, s.userId],
    references: s.references?.map((x) => ({ ...x, attributes: [...x.attributes] })),
  };
}
