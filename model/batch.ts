// What moves through the synchronous processors: one batch per request.
import type { Span } from './span.ts';

/** Where a batch was decoded; `namespace` maps semantic conventions for `otlp` batches by default. */
export type BatchOrigin = 'tracing' | 'otlp';

/** The tracing API body after its top-level shape was checked (ingest-api.md §3.1). */
export type TracingBody =
  | { form: 'flat'; spans: unknown[] }
  | { form: 'tree'; traces: Record<string, unknown> };

/**
 * One submitted span of the tracing API as the `flatten` processor hands it to `validate`:
 * raw JSON, its position in the request, and what it may inherit (ingest-api.md §3.3).
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
   *  `validate` rejects the node `invalid spans`. */
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

/**
 * The batch the synchronous processors work on, in place and in this order:
 * flatten (tracing body -> drafts), validate (drafts -> spans + rejections, or checks decoded spans),
 * namespace (spans, in place).
 */
export interface WorkingBatch {
  origin: BatchOrigin;
  /** Set by the http receiver; consumed by `flatten`. */
  tracing?: TracingBody;
  /** Set by `flatten`; consumed by `validate`. */
  drafts?: SpanDraft[];
  /** Accepted spans in index order, de-duplicated (ingest-api.md §5.3). Set by a receiver that decodes
   *  straight to spans (OTLP) or by `validate`. */
  spans: Span[];
  /** Index of each accepted span in the request, aligned with `spans`. */
  indexes?: number[];
  /** In index order. */
  rejections: Rejection[];
  /** Request time, used where the API defaults to "now" (simple traces). */
  receivedNs?: bigint;
}
