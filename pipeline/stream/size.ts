// A cheap estimate of the memory a span holds, for the in-memory stream's byte bound. It need not be
// exact: it must grow with what the client sent so that the bound means something.
//
// Where the receiver says how many body bytes the spans came in, the estimate is taken from that
// (estimateFromWire): the walk below was ~1.7% of the daemon's CPU on the OTLP benchmark (perf, decision
// 0500), and the size of the body is a measure the client cannot make small while the spans stay large.
//
// It runs for every appended span, so it allocates nothing: attributes are read through the list's
// arrays, not its iterators (docs/performance.md, rounds 0350 and 0450).
import type { AttrValue, Attributes, Span } from '../../model/span.ts';

const SPAN_OVERHEAD = 400;
const ENTRY_OVERHEAD = 48;
/**
 * Held bytes per body byte. A string costs at most two bytes per character in memory against at least
 * one on the wire, and every decoded key, value and event is an object or a slot besides. For the
 * benchmark's spans the walk gives 4.3x the protobuf body (mapped semantic conventions counted twice)
 * and the heap holds ~2.4x.
 */
const WIRE_FACTOR = 3;

/**
 * The part of a request body of `bodyBytes` that `kept` of its `total` spans stand for (the rest were
 * rejected): what a receiver passes to `append` as the spans' wire bytes.
 */
export function keptShare(bodyBytes: number, kept: number, total: number): number {
  return kept >= total ? bodyBytes : Math.ceil((bodyBytes * kept) / total);
}

/** The estimate for `spans` spans that came in `wireBytes` bytes of request body. */
export function estimateFromWire(spans: number, wireBytes: number): number {
  return spans * SPAN_OVERHEAD + wireBytes * WIRE_FACTOR;
}

function attributesBytes(attrs: Attributes | undefined): number {
  if (!attrs) return 0;
  let sum = attrs.size * ENTRY_OVERHEAD;
  const keys = attrs.keyArray;
  const values = attrs.valueArray;
  for (let i = 0; i < keys.length; i++) sum += keys[i].length * 2 + valueBytes(values[i]);
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
