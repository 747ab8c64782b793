// How `tracehop traces` and `tracehop trace` print what the read routes answer: a trace map
// (read-api.md §4, `{"spans": {"<name>": Node | [Node, ...]}}`) as one summary line, or as an indented tree.
// Pure functions of the JSON, so the output is the same whichever daemon answered.

/** A span of a read response (read-api.md §3), with the fields printed here. */
export interface ReadSpan {
  trace_id: string;
  span_id: string;
  parent_id?: string;
  span_name: string;
  span_type?: string;
  start_time: string;
  end_time: string;
  status_code?: string;
  status_message?: string;
  spans?: SpanMap;
}

export type SpanMap = Record<string, ReadSpan | ReadSpan[]>;

/** A span and the spans under it, siblings in the order of read-api.md §4. */
export interface SpanTree {
  span: ReadSpan;
  children: SpanTree[];
}

/** A record time (`YYYY-MM-DDThh:mm:ss[.f]Z`, up to 9 fraction digits) as nanoseconds since the epoch. */
export function instantNs(iso: string): bigint {
  const match = /^(.*?:\d\d)(?:\.(\d{1,9}))?Z$/.exec(iso);
  const seconds = Date.parse((match?.[1] ?? iso) + 'Z');
  if (!Number.isFinite(seconds)) return 0n;
  return BigInt(seconds) * 1_000_000n + BigInt((match?.[2] ?? '').padEnd(9, '0') || '0');
}

/** Start time, then span id, ascending: the sibling order of read-api.md §4. */
function bySpanOrder(a: SpanTree, b: SpanTree): number {
  const at = instantNs(a.span.start_time);
  const bt = instantNs(b.span.start_time);
  if (at !== bt) return at < bt ? -1 : 1;
  return a.span.span_id < b.span.span_id ? -1 : a.span.span_id > b.span.span_id ? 1 : 0;
}

/**
 * The trees of a `spans` map. The order is rebuilt from the spans rather than taken from the map's keys:
 * JSON objects put integer-like keys (a span named `2`) first whatever the server wrote.
 */
export function spanTrees(spans: SpanMap | undefined): SpanTree[] {
  const trees: SpanTree[] = [];
  for (const entry of Object.values(spans ?? {})) {
    for (const span of Array.isArray(entry) ? entry : [entry]) trees.push({ span, children: spanTrees(span.spans) });
  }
  return trees.sort(bySpanOrder);
}

function walk(trees: SpanTree[], visit: (tree: SpanTree, depth: number) => void, depth = 0): void {
  for (const tree of trees) {
    visit(tree, depth);
    walk(tree.children, visit, depth + 1);
  }
}

/** `850µs`, `12.5ms`, `1.5s`, `2m03s`: three significant digits at most, for a column people scan. */
export function formatDuration(ns: bigint): string {
  if (ns < 0n) return '-' + formatDuration(-ns);
  const n = Number(ns);
  const trim = (v: number, digits: number) => String(Number(v.toFixed(digits)));
  if (n < 1e6) return `${trim(n / 1e3, n < 1e4 ? 1 : 0)}µs`;
  if (n < 1e9) return `${trim(n / 1e6, n < 1e7 ? 2 : n < 1e8 ? 1 : 0)}ms`;
  if (n < 60e9) return `${trim(n / 1e9, n < 1e10 ? 2 : 1)}s`;
  const seconds = Math.round(n / 1e9);
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor(seconds / 60) % 60).padStart(2, '0')}m`;
}

function spanDuration(span: ReadSpan): string {
  return formatDuration(instantNs(span.end_time) - instantNs(span.start_time));
}

/** `OK`, `ERROR: <message>`, or `UNSET` (also for a span without a status). */
export function formatStatus(span: ReadSpan): string {
  const code = (span.status_code ?? 'STATUS_CODE_UNSET').replace(/^STATUS_CODE_/, '');
  return span.status_message ? `${code}: ${span.status_message}` : code;
}

export interface TraceSummary {
  traceId: string;
  /** The first root (no parent) in span order; the first top-level span when every one is an orphan. */
  rootName: string;
  spanCount: number;
  /** Earliest start and latest end over every span. */
  start: string;
  durationNs: bigint;
}

export function summarise(traceId: string, spans: SpanMap | undefined): TraceSummary {
  const trees = spanTrees(spans);
  let count = 0;
  let first: ReadSpan | undefined;
  let last: ReadSpan | undefined;
  walk(trees, ({ span }) => {
    count++;
    if (first === undefined || instantNs(span.start_time) < instantNs(first.start_time)) first = span;
    if (last === undefined || instantNs(span.end_time) > instantNs(last.end_time)) last = span;
  });
  const root = trees.find((t) => t.span.parent_id === undefined) ?? trees[0];
  return {
    traceId,
    rootName: root?.span.span_name ?? '',
    spanCount: count,
    start: first?.start_time ?? '',
    durationNs: first && last ? instantNs(last.end_time) - instantNs(first.start_time) : 0n,
  };
}

/** A header line, then one line per trace in columns: id, root name, span count, start time, duration. */
export function formatTraceList(summaries: TraceSummary[]): string {
  const rows = [['TRACE_ID', 'ROOT', 'SPANS', 'START', 'DURATION']];
  for (const s of summaries) rows.push([s.traceId, s.rootName, String(s.spanCount), s.start, formatDuration(s.durationNs)]);
  const widths = rows[0].map((_, col) => Math.max(...rows.map((r) => r[col].length)));
  return rows.map((r) => r.map((cell, col) => (col === r.length - 1 ? cell : cell.padEnd(widths[col]))).join('  ') + '\n').join('');
}

/**
 * The trace as a tree: a summary line, then one line per span in pre-order, indented two spaces per level:
 * name, [type], duration, status; an orphan says which parent is not stored.
 */
export function formatTraceTree(traceId: string, spans: SpanMap | undefined): string {
  const summary = summarise(traceId, spans);
  let text = `trace ${traceId}: ${summary.spanCount} span${summary.spanCount === 1 ? '' : 's'}, from ${summary.start}, ${formatDuration(summary.durationNs)}\n`;
  walk(spanTrees(spans), ({ span }, depth) => {
    const orphan = depth === 0 && span.parent_id !== undefined ? `  (parent ${span.parent_id} not stored)` : '';
    const type = span.span_type ? `  [${span.span_type}]` : '';
    text += `${'  '.repeat(depth + 1)}${span.span_name}${type}  ${spanDuration(span)}  ${formatStatus(span)}${orphan}\n`;
  });
  return text;
}
