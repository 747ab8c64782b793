// A cheap estimate of the memory a span holds, for the in-memory stream's byte bound. It need not be
// exact: it must grow with what the client sent so that the bound means something.
import type { Attributes, Span } from '../span.ts';

const SPAN_OVERHEAD = 400;
const ENTRY_OVERHEAD = 48;

function attributesBytes(attrs: Attributes | undefined): number {
  if (!attrs) return 0;
  let n = 0;
  for (const [key, value] of attrs) {
    n += ENTRY_OVERHEAD + key.length * 2;
    if (typeof value === 'string') n += value.length * 2;
    else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const v = value[i];
        n += typeof v === 'string' ? v.length * 2 + 16 : 16;
      }
    } else n += 16;
  }
  return n;
}

export function estimateSpanBytes(span: Span): number {
  let n = SPAN_OVERHEAD + span.name.length * 2 + attributesBytes(span.attributes) + attributesBytes(span.resource);
  if (span.events) for (const e of span.events) n += ENTRY_OVERHEAD + e.name.length * 2 + attributesBytes(e.attributes);
  if (span.links) for (const l of span.links) n += ENTRY_OVERHEAD * 2 + attributesBytes(l.attributes);
  if (span.references) for (const r of span.references) n += ENTRY_OVERHEAD * 2 + attributesBytes(r.attributes);
  if (span.status.message) n += span.status.message.length * 2;
  return n;
}
