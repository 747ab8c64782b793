// How `tracehop traces` and `tracehop trace` print what the read routes answer: a trace map
// (read-api.md §4, `{"spans": {"<name>": Node | [Node, ...]}}`) as one summary line, or as an indented tree.
// Pure functions of the JSON, so the output is the same whichever daemon answered; the walk, the sibling
// order and the root are model/read-trace.ts's, shared with the page.
import { outline, spansInOrder, type MapSpan } from '../model/read-trace.ts';
import { parseTimestamp } from '../model/time.ts';

/** A trace map's `spans` (read-api.md §4), as the read routes answer it. */
export type SpanMap = Record<string, unknown>;

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

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function spanDuration(span: MapSpan): string {
  return formatDuration((parseTimestamp(span.end_time) ?? 0n) - (parseTimestamp(span.start_time) ?? 0n));
}

/** `OK`, `ERROR: <message>`, or `UNSET` (also for a span without a status). */
export function formatStatus(span: MapSpan): string {
  const code = (text(span.status_code) || 'STATUS_CODE_UNSET').replace(/^STATUS_CODE_/, '');
  return span.status_message ? `${code}: ${text(span.status_message)}` : code;
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
  const o = outline(spansInOrder(spans));
  return {
    traceId,
    rootName: text(o.root?.span_name),
    spanCount: o.spans,
    start: text(o.first?.start_time),
    durationNs: o.startNs !== undefined && o.endNs !== undefined ? o.endNs - o.startNs : 0n,
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
  let out = `trace ${traceId}: ${summary.spanCount} span${summary.spanCount === 1 ? '' : 's'}, from ${summary.start}, ${formatDuration(summary.durationNs)}\n`;
  for (const { span, depth } of spansInOrder(spans)) {
    const orphan = depth === 0 && span.parent_id !== undefined ? `  (parent ${text(span.parent_id)} not stored)` : '';
    const type = span.span_type ? `  [${text(span.span_type)}]` : '';
    out += `${'  '.repeat(depth + 1)}${text(span.span_name)}${type}  ${spanDuration(span)}  ${formatStatus(span)}${orphan}\n`;
  }
  return out;
}
