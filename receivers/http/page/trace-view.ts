// What the page shows of a trace, from the read side's trace map (read-api.md §4): its spans in
// pre-order with their depth in the tree (model/read-trace.ts, the walk `tracehop trace` prints too), and
// a one-line summary (name, type, duration, status, tokens, cost) from the spans' fields and their
// `ag.metrics` attributes (ag-namespace.md §4).
import { isJsonObject } from '../../../model/json-object.ts';
import { outline, type MapSpan, type SpanAtDepth } from '../../../model/read-trace.ts';
import { parseTimestamp } from '../../../model/time.ts';

/** A span of the read responses (read-api.md §3): record fields, `attributes` in the nested shape. */
export type SpanObject = MapSpan;

export interface TraceSummary {
  traceId: string;
  name: string;
  type: string | undefined;
  startTime: string | undefined;
  /** From the earliest start to the latest end of its spans. */
  durationMs: number | undefined;
  /** `error` when a span has STATUS_CODE_ERROR, else the root's status. */
  status: 'error' | 'ok' | 'unset';
  errors: number;
  spans: number;
  tokens: number | undefined;
  cost: number | undefined;
}

/** The value at a path of nested objects, or undefined. */
export function valueAt(root: unknown, ...keys: string[]): unknown {
  let v = root;
  for (const k of keys) {
    if (!isJsonObject(v)) return undefined;
    v = v[k];
  }
  return v;
}

function numberAt(root: unknown, ...keys: string[]): number | undefined {
  const v = valueAt(root, ...keys);
  return typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined;
}

/** Milliseconds from `start` to `end` (record times, to the nanosecond), or undefined. */
function lengthMs(start: bigint | undefined, end: bigint | undefined): number | undefined {
  return start !== undefined && end !== undefined && end >= start ? Number(end - start) / 1e6 : undefined;
}

/** A span's own duration: its computed `ag.metrics.duration.cumulative`, else end - start. */
export function spanDurationMs(span: SpanObject): number | undefined {
  const computed = numberAt(span.attributes, 'ag', 'metrics', 'duration', 'cumulative');
  if (computed !== undefined) return computed;
  return lengthMs(parseTimestamp(span.start_time), parseTimestamp(span.end_time));
}

/** The root's cumulative total when it carries one, else the sum of every span's incremental total. */
function traceTotal(root: SpanObject, spans: SpanAtDepth[], metric: 'tokens' | 'costs'): number | undefined {
  const cumulative = numberAt(root.attributes, 'ag', 'metrics', metric, 'cumulative', 'total');
  if (cumulative !== undefined) return cumulative;
  let sum: number | undefined;
  for (const { span } of spans) {
    const own = numberAt(span.attributes, 'ag', 'metrics', metric, 'incremental', 'total');
    if (own !== undefined) sum = (sum ?? 0) + own;
  }
  return sum;
}

/** A span's type for display: its span type, or its trace type on a root without one. */
export function spanType(span: SpanObject): string | undefined {
  const type = span.span_type ?? span.trace_type;
  return typeof type === 'string' ? type : undefined;
}

export function summarise(traceId: string, spans: SpanAtDepth[]): TraceSummary {
  const o = outline(spans);
  const first = o.root ?? {};
  let errors = 0;
  for (const { span } of spans) if (span.status_code === 'STATUS_CODE_ERROR') errors++;
  const type = first.span_type ?? first.trace_type;
  return {
    traceId,
    name: typeof first.span_name === 'string' ? first.span_name : '',
    type: typeof type === 'string' ? type : undefined,
    startTime: typeof first.start_time === 'string' ? first.start_time : undefined,
    durationMs: lengthMs(o.startNs, o.endNs),
    status: errors > 0 ? 'error' : first.status_code === 'STATUS_CODE_OK' ? 'ok' : 'unset',
    errors,
    spans: spans.length,
    tokens: traceTotal(first, spans, 'tokens'),
    cost: traceTotal(first, spans, 'costs'),
  };
}

/** `attributes` without what the page shows on its own (`ag.data.inputs`, `ag.data.outputs`, `ag.metrics`). */
export function otherAttributes(attributes: unknown): Record<string, unknown> {
  if (!isJsonObject(attributes)) return {};
  const { ag, ...rest } = attributes;
  if (!isJsonObject(ag)) return attributes;
  const { data, metrics: _metrics, ...agRest } = ag;
  const keptData = isJsonObject(data) ? Object.fromEntries(Object.entries(data).filter(([k]) => k !== 'inputs' && k !== 'outputs')) : data;
  const keptAg = { ...agRest, ...(keptData !== undefined && !(isJsonObject(keptData) && Object.keys(keptData).length === 0) ? { data: keptData } : {}) };
  return Object.keys(keptAg).length === 0 ? rest : { ag: keptAg, ...rest };
}
