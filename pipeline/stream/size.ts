// A cheap estimate of the memory a span holds, for the in-memory stream's byte bound. It need not be
// exact: it must grow with what the client sent so that the bound means something.
//
// It runs for every appended span, so it allocates nothing. An AttributeList (what tracehop builds) is
// read through its arrays: walking its keys() and values() iterators instead, in code that also sees
// Maps, made the whole daemon slower in 2 of 3 A/B pairs, by up to a third (decision 0450). For a Map,
// `for (const [key, value] of map)` builds an entry array per member (about 1 KB of garbage per span of
// the benchmark); keys and values are walked by their own iterators, which optimised code keeps off the
// heap (decision 0350).
import { AttributeList } from '../attributes/list.ts';
import type { AttrValue, Attributes, Span } from '../span.ts';

const SPAN_OVERHEAD = 400;
const ENTRY_OVERHEAD = 48;

function attributesBytes(attrs: Attributes | undefined): number {
  if (!attrs) return 0;
  let sum = attrs.size * ENTRY_OVERHEAD;
  if (attrs instanceof AttributeList) {
    // What namespace writes: its arrays, read directly.
    const keys = attrs.keyArray;
    const values = attrs.valueArray;
    for (let i = 0; i < keys.length; i++) sum += keys[i].length * 2 + valueBytes(values[i]);
    return sum;
  }
  for (const key of attrs.keys()) sum += key.length * 2;
  for (const value of attrs.values()) sum += valueBytes(value);
  return sum;
}

function valueBytes(value: AttrValue): number {
  if (typeof value === 'string') return value.length * 2;
  if (!Array.isArray(value)) return 16;
  let sum = 0;
  for (let i = 0; i < value.length; i++) {
    const v: unknown = value[i];
    sum += typeof v === 'string' ? v.length * 2 + 16 : 16;
  }
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
