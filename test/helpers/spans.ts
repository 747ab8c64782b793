// Canonical spans for unit tests.
import { AttributeList } from '../../model/attributes/list.ts';
import { SPAN_FIELDS, type Span } from '../../model/span.ts';

let counter = 0;

/** A valid span with distinct ids; `overrides` replaces fields. */
export function makeSpan(overrides: Partial<Span> = {}): Span {
  counter++;
  const hex = counter.toString(16).padStart(16, '0');
  return {
    traceId: '4bf92f3577b34da6' + hex,
    spanId: hex,
    name: `span-${counter}`,
    kind: 0,
    startNs: 1776363498000000000n,
    endNs: 1776363499500000000n,
    status: { code: 0 },
    attributes: new AttributeList([['ag.type.span', 'task']]),
    ...overrides,
  };
}

export function makeSpans(n: number): Span[] {
  return Array.from({ length: n }, () => makeSpan());
}

/**
 * `span` in the shape receivers build (every SPAN_FIELDS member present, undefined where absent), for
 * toStrictEqual against decoded spans: strict equality still tells an absent field from an empty one.
 */
export function withAllFields(span: Span): Span {
  const out: Record<string, unknown> = {};
  for (const field of SPAN_FIELDS) out[field] = span[field];
  return out as unknown as Span;
}
