// A cheap estimate of the memory a span holds, for the in-memory stream's byte bound. It need not be
// exact: it must grow with what the client sent so that the bound means something.
//
// It runs for every appended span, so it allocates nothing: maps are walked with forEach and a
// module-level callback, since `for (const [key, value] of map)` builds an entry array per member
// (measured: about 1 KB of garbage per span of the benchmark).
import type { Attributes, Span } from '../span.ts';

const SPAN_OVERHEAD = 400;
const ENTRY_OVERHEAD = 48;

/** The running sum of the current attributesBytes() walk (the walk never nests). */
let sum = 0;

function addEntry(value: unknown, key: string): void {
  sum += ENTRY_OVERHEAD + key.length * 2;
  if (typeof value === 'string') sum += value.length * 2;
  else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      sum += typeof v === 'string' ? v.length * 2 + 16 : 16;
    }
  } else sum += 16;
}

function attributesBytes(attrs: Attributes | undefined): number {
  if (!attrs) return 0;
  sum = 0;
  attrs.forEach(addEntry);
  return sum;
}

export function estimateSpanBytes(span: Span): number {
  let n = SPAN_OVERHEAD + span.name.length * 2 + attributesBytes(span.attributes) + attributesBytes(span.resource);
  const events = span.events;
  if (events) {
    for (let i = 0; i < events.length; i++) n += ENTRY_OVERHEAD + events[i].name.length * 2 + attributesBytes(events[i].attributes);
  }
  const links = span.links;
  if (links) for (let i = 0; i < links.length; i++) n += ENTRY_OVERHEAD * 2 + attributesBytes(links[i].attributes);
  const references = span.references;
  if (references) for (let i = 0; i < references.length; i++) n += ENTRY_OVERHEAD * 2 + attributesBytes(references[i].attributes);
  if (span.status.message) n += span.status.message.length * 2;
  return n;
}
