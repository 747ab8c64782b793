// The canonical span: the one shape that flows between receivers, processors and exporters
// (spec/span-record.md). Receivers convert into it at the edge; exporters convert out of it.

import type { AttributeList } from './attributes/list.ts';

export type { AttrScalar, AttrValue } from './attributes/list.ts';

/**
 * An ordered flat map of dotted keys to values (ag-namespace.md §1.1): an AttributeList
 * (attributes/list.ts), a Map's meaning over two arrays that the hot stages walk directly. Insertion
 * order for every key (plain objects move integer-like keys first), and `set` on an existing key keeps
 * its position, which is the duplicate rule of §1.2.
 */
export type Attributes = AttributeList;

/** Never changed in place: spans share the statuses without a message (spanStatus). */
export interface SpanStatus {
  readonly code: number;
  readonly message?: string;
}

/** One object for each of the three codes without a message; a status is read, never changed. */
const PLAIN_STATUSES: readonly SpanStatus[] = [{ code: 0 }, { code: 1 }, { code: 2 }];

/**
 * The status `code` with `message` (none when undefined): a shared object for the usual case, where a
 * new one per span was a heap object, and a cache line the record encoder reads cold (docs/performance.md, round 0480).
 */
export function spanStatus(code: number, message: string | undefined): SpanStatus {
  if (message === undefined) return PLAIN_STATUSES[code] ?? { code };
  return { code, message };
}

export interface SpanEvent {
  name: string;
  timeNs: bigint;
  attributes: Attributes;
  /** OTLP-only, carried for a faithful forward. */
  droppedAttributesCount?: number;
}

export interface SpanLink {
  traceId: string;
  spanId: string;
  attributes: Attributes;
  /** OTLP-only, carried for a faithful forward. */
  traceState?: string;
  flags?: number;
  droppedAttributesCount?: number;
}

export interface SpanReference {
  /** Lowercase dashed UUID. */
  id?: string;
  slug?: string;
  version?: string;
  attributes: Attributes;
}

export interface SpanScope {
  name: string;
  version?: string;
  attributes?: Attributes;
}

/** OTLP fields with no place in the tracing API (spec/otlp.md "faithful forward"). */
export interface OtlpExtras {
  traceState?: string;
  flags?: number;
  droppedAttributesCount?: number;
  droppedEventsCount?: number;
  droppedLinksCount?: number;
  resourceSchemaUrl?: string;
  scopeSchemaUrl?: string;
}

export interface Span {
  /** 32 lowercase hex, never all zeros. */
  traceId: string;
  /** 16 lowercase hex, never all zeros. */
  spanId: string;
  /** 16 lowercase hex; absent = root. */
  parentId?: string;
  name: string;
  /** OTLP SpanKind number 0..5. */
  kind: number;
  /** Nanoseconds since the Unix epoch, UTC. */
  startNs: bigint;
  endNs: bigint;
  status: SpanStatus;
  attributes: Attributes;
  /** Absent and [] are kept distinct, as the client sent them (the errors metric needs at least one event). */
  events?: SpanEvent[];
  /** Absent and [] are distinct until `namespace` ran: [] makes the trace an annotation. */
  links?: SpanLink[];
  references?: SpanReference[];
  resource?: Attributes;
  scope?: SpanScope;
  otlp?: OtlpExtras;
  traceType?: string;
  spanType?: string;
  sessionId?: string;
  userId?: string;
  /** The project of the API key the request was accepted with (never from the client's data); absent
   *  when the receiver takes requests without authentication. */
  project?: string;
}

/**
 * Every Span field, in one order. Receivers build each span with all of them (newSpan), `undefined`
 * where absent, so that V8 gives every span the same hidden class and the stages after them (namespace,
 * the encoders) read fields through monomorphic inline caches: measured 6-8% off namespace + record
 * encode against spans whose optional fields were added one by one. To every reader, absent and
 * undefined are the same (`span.events === undefined`); [] stays distinct from both.
 */
export const SPAN_FIELDS = [
  'traceId', 'spanId', 'parentId', 'name', 'kind', 'startNs', 'endNs', 'status', 'attributes', 'events', 'links',
  'references', 'resource', 'scope', 'otlp', 'traceType', 'spanType', 'sessionId', 'userId', 'project',
] as const satisfies ReadonlyArray<keyof Span>;

/** A new span as receivers build them: every SPAN_FIELDS member, in order, the optional ones undefined. */
export function newSpan(
  traceId: string, spanId: string, name: string, kind: number, startNs: bigint, endNs: bigint, status: SpanStatus, attributes: Attributes,
): Span {
  return {
    traceId, spanId, parentId: undefined, name, kind, startNs, endNs, status, attributes, events: undefined, links: undefined,
    references: undefined, resource: undefined, scope: undefined, otlp: undefined, traceType: undefined, spanType: undefined,
    sessionId: undefined, userId: undefined, project: undefined,
  };
}

/** The span types of ag-namespace.md §3.4 (`ag.type.span`). */
export const SPAN_TYPES = [
  'agent', 'chain', 'workflow', 'task', 'tool', 'embedding', 'query', 'llm', 'completion', 'chat', 'rerank',
  'unknown',
] as const;

export const TRACE_TYPES = ['invocation', 'annotation', 'unknown'] as const;

/** The keys of `ag.references` entries (ag-namespace.md §3.5, ingest-api.md §8.1). */
export const REFERENCE_KEYS: ReadonlySet<string> = new Set([
  'testcase', 'testset', 'testset_variant', 'testset_revision', 'query', 'query_variant', 'query_revision',
  'workflow', 'workflow_variant', 'workflow_revision', 'application', 'application_variant',
  'application_revision', 'evaluator', 'evaluator_variant', 'evaluator_revision', 'environment',
  'environment_variant', 'environment_revision', 'snippet', 'snippet_variant', 'snippet_revision',
]);

export const SPAN_KIND_NAMES = [
  'SPAN_KIND_UNSPECIFIED', 'SPAN_KIND_INTERNAL', 'SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT', 'SPAN_KIND_PRODUCER',
  'SPAN_KIND_CONSUMER',
] as const;

export const STATUS_CODE_NAMES = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'] as const;

/** The tracing API's names of kinds and status codes -> their numbers (ingest-api.md §4.1). */
export const SPAN_KIND_BY_NAME: ReadonlyMap<string, number> = new Map(SPAN_KIND_NAMES.map((n, i) => [n, i]));
export const STATUS_CODE_BY_NAME: ReadonlyMap<string, number> = new Map(STATUS_CODE_NAMES.map((n, i) => [n, i]));

const SPAN_TYPE_SET: ReadonlySet<string> = new Set(SPAN_TYPES);
const TRACE_TYPE_SET: ReadonlySet<string> = new Set(TRACE_TYPES);

/** A `span_type` the tracing API accepts. */
export function isSpanType(v: unknown): v is string {
  return typeof v === 'string' && SPAN_TYPE_SET.has(v);
}

/** A `trace_type` the tracing API accepts. */
export function isTraceType(v: unknown): v is string {
  return typeof v === 'string' && TRACE_TYPE_SET.has(v);
}
