// A trace as the read routes answer it (read-api.md §4: `{"spans": {"<name>": Node | [Node, ...]}}`), walked
// the one way both readers of it need: `tracehop trace` / `traces` (cmd/trace-format.ts) and the page
// (receivers/http/page/). Pure functions of the JSON, with no trust in its field types.
//
// Siblings are ordered by start time, then span id (the order of read-api.md §4), rebuilt from the spans
// rather than taken from the map's keys: a JavaScript object puts integer-like keys (a span named `2`)
// first, whatever order the server wrote them in.
import { isJsonObject } from './json-object.ts';
import { parseTimestamp } from './time.ts';

/** A span of a read response (read-api.md §3), without its `spans`: its fields as the JSON has them. */
export type MapSpan = Record<string, unknown>;

export interface SpanAtDepth {
  span: MapSpan;
  /** 0 for the top level (roots and orphans). */
  depth: number;
}

/** What both summaries of a trace start from. */
export interface TraceOutline {
  /** The span a trace is named after: its first root in span order; an orphan only when no root is stored. */
  root: MapSpan | undefined;
  spans: number;
  /** The earliest start and the latest end over every span with a readable time. */
  startNs: bigint | undefined;
  endNs: bigint | undefined;
  /** The span that started first (the first in span order among equals). */
  first: MapSpan | undefined;
}

interface Sortable {
  span: MapSpan;
  children: unknown;
  start: bigint | undefined;
  id: string;
}

/** Start time (a span without one first), then span id, ascending. */
function bySpanOrder(a: Sortable, b: Sortable): number {
  if (a.start !== b.start) {
    if (a.start === undefined) return -1;
    if (b.start === undefined) return 1;
    return a.start < b.start ? -1 : 1;
  }
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The nodes of one `spans` map, in span order. */
function siblings(map: unknown): Sortable[] {
  if (!isJsonObject(map)) return [];
  const out: Sortable[] = [];
  for (const entry of Object.values(map)) {
    for (const node of Array.isArray(entry) ? entry : [entry]) {
      if (!isJsonObject(node)) continue;
      const { spans: children, ...span } = node;
      out.push({ span, children, start: parseTimestamp(span.start_time), id: typeof span.span_id === 'string' ? span.span_id : '' });
    }
  }
  return out.sort(bySpanOrder);
}

/** The spans of a trace map's `spans` in pre-order with their depth, siblings in span order; no recursion. */
export function spansInOrder(spans: unknown): SpanAtDepth[] {
  const out: SpanAtDepth[] = [];
  const stack: Array<{ node: Sortable; depth: number }> = [];
  const push = (map: unknown, depth: number): void => {
    const nodes = siblings(map);
    for (let i = nodes.length - 1; i >= 0; i--) stack.push({ node: nodes[i], depth });
  };
  push(spans, 0);
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    out.push({ span: node.span, depth });
    push(node.children, depth + 1);
  }
  return out;
}

/** Root, count and time bounds of the spans `spansInOrder` gave. */
export function outline(spans: SpanAtDepth[]): TraceOutline {
  let startNs: bigint | undefined;
  let endNs: bigint | undefined;
  let first: MapSpan | undefined;
  for (const { span } of spans) {
    const start = parseTimestamp(span.start_time);
    const end = parseTimestamp(span.end_time);
    if (start !== undefined && (startNs === undefined || start < startNs)) {
      startNs = start;
      first = span;
    }
    if (end !== undefined && (endNs === undefined || end > endNs)) endNs = end;
  }
  const root = spans.find((s) => s.depth === 0 && s.span.parent_id === undefined)?.span ?? spans[0]?.span;
  return { root, spans: spans.length, startNs, endNs, first };
}
