// What a receiver hands the pipeline (one batch per request), and the tracing API's shapes on the way
// to it (the body, one draft per submitted span, a rejection).
import type { Span } from './span.ts';

/** Where a batch was decoded; `namespace` maps semantic conventions for `otlp` batches by default. */
export type BatchOrigin = 'tracing' | 'otlp';

/** The tracing API body after its top-level shape was checked (ingest-api.md §3.1). */
export type TracingBody =
  | { form: 'flat'; spans: unknown[] }
  | { form: 'tree'; traces: Record<string, unknown> };

/**
 * One submitted span of the tracing API as the receiver's edge checks it (codec/tracing/spans.ts): the
 * value as read, its position in the request, and what it may inherit (ingest-api.md §3.3).
 */
export interface SpanDraft {
  /** Flat: position in `spans`; tree: pre-order position. Every node counts, valid or not. */
  index: number;
  /** `spans[3]`, `traces.<key>.spans.<name>[j]...` (ingest-api.md §3.3). */
  path: string;
  /** The submitted value, not yet checked. */
  value: unknown;
  /** Tree only: the name the node sits under (default `span_name`). */
  nodeName?: string;
  /** Tree only: index of the enclosing node's draft; absent for a top-level node. */
  parent?: number;
  /** Tree only, top-level nodes: the trace key (inherited as trace_id when it is valid). */
  traceKey?: string;
  /** Tree only: the node's `spans` is present but not an object, so its children were not visited;
   *  it is rejected `invalid spans`. */
  invalidSpans?: true;
}

/** A span that did not pass; reported to the client, nothing of it enters the pipeline. */
export interface Rejection {
  index: number;
  path: string;
  /** As sent, only when it was a string. */
  trace_id?: string;
  span_id?: string;
  /** `<kind> <field>[: free text]` (ingest-api.md §5.1). */
  reason: string;
}

/** One request's accepted spans, canonical, on their way through the pipeline's synchronous processors
 *  (which work on them in place) into its streams. */
export interface WorkingBatch {
  origin: BatchOrigin;
  spans: Span[];
  /** The project of the key the request was accepted with (absent without auth): the pipeline gives it
   *  to every span before its processors run; nothing the client sent can set it. */
  project?: string;
}

/** Gives every span of the batch its project (the pipeline does, before the processors run). */
export function stampProject(batch: WorkingBatch): void {
  const project = batch.project;
  if (project === undefined) return;
  const spans = batch.spans;
  for (let i = 0; i < spans.length; i++) spans[i].project = project;
}
