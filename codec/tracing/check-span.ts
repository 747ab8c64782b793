// One draft of the tracing API -> a canonical span, or the reason it is rejected (ingest-api.md §3.3
// inheritance, then the §4.1 checks in table order; only the first failing field is reported).
import type { SpanDraft } from '../../model/batch.ts';
import { isZeroSpanId, normaliseSpanId, normaliseTraceId, spanIdHex, type RandomIds } from '../../model/ids.ts';
import type { Span } from '../../model/span.ts';
import { isSpanType, isTraceType, newSpan, spanStatus, SPAN_KIND_BY_NAME, STATUS_CODE_BY_NAME } from '../../model/span.ts';
import { parseTimestamp } from '../../model/time.ts';
import { isJsonObject } from '../../model/json-object.ts';
import {
  attributesOf, isAbsent, parseEvents, parseLinks, parseOtlpExtras, parseReferences, parseScope,
} from './span-parts.ts';

/**
 * The answer of a pure function for the last string it was asked about. Spans of one request nearly
 * always share the trace id and most share the parent, kind and status, so a repeat costs one string
 * comparison instead of a hex scan or a Map lookup that hashes a fresh string (as the OTLP rules do,
 * docs/performance.md, round 0390), and every span of the trace gets the same id string instance (docs/performance.md, round 0440).
 */
class LastAnswer<T> {
  private asked: string | undefined = undefined;
  private answer: T | undefined = undefined;
  private readonly compute: (text: string) => T | undefined;

  constructor(compute: (text: string) => T | undefined) {
    this.compute = compute;
  }

  /** compute(raw) for a string; undefined (what every rule answers for a non-string) otherwise. */
  of(raw: unknown): T | undefined {
    if (typeof raw !== 'string') return undefined;
    if (raw !== this.asked) {
      this.asked = raw;
      this.answer = this.compute(raw);
    }
    return this.answer;
  }
}

const kindOf = (name: string) => SPAN_KIND_BY_NAME.get(name);
const codeOf = (name: string) => STATUS_CODE_BY_NAME.get(name);

/**
 * What children inherit (§3.3): each draft's effective, normalised trace_id and its own span_id, by
 * draft index, undefined when missing or invalid. Recorded for every object node, rejected or not,
 * since a rejected parent still passes on what of it is valid. With it, per request, the last answers
 * of the id normalisations and the enum lookups.
 */
export interface Lineage {
  traceIds: Array<string | undefined>;
  spanIds: Array<string | undefined>;
  traceId: LastAnswer<string>;
  parentHex: LastAnswer<string>;
  kind: LastAnswer<number>;
  code: LastAnswer<number>;
  /** Names for nameless flat spans. */
  random: RandomIds;
}

export function newLineage(size: number, random: RandomIds): Lineage {
  return {
    traceIds: new Array(size),
    spanIds: new Array(size),
    traceId: new LastAnswer(normaliseTraceId),
    parentHex: new LastAnswer(spanIdHex),
    kind: new LastAnswer(kindOf),
    code: new LastAnswer(codeOf),
    random,
  };
}

/** The draft as a span, or the rejection reason. Records the draft's ids in `lineage` first. */
export function checkDraft(draft: SpanDraft, lineage: Lineage): Span | string {
  const o = draft.value;
  if (!isJsonObject(o)) return 'invalid span: expected an object';
  const index = draft.index;

  // trace_id: explicit, else inherited (tree only).
  let reason: string | undefined;
  let traceId: string | undefined;
  const rawTrace = o.trace_id;
  if (!isAbsent(rawTrace)) {
    traceId = lineage.traceId.of(rawTrace);
    if (traceId === undefined) reason = 'invalid trace_id: expected 32 hex digits (optionally dashed)';
  } else if (draft.parent !== undefined) {
    traceId = lineage.traceIds[draft.parent];
    if (traceId === undefined) reason = 'cannot inherit trace_id';
  } else {
    if (draft.traceKey !== undefined) traceId = normaliseTraceId(draft.traceKey);
    if (traceId === undefined) reason = 'missing trace_id';
  }
  const rawSpan = o.span_id;
  const spanId = isAbsent(rawSpan) ? undefined : normaliseSpanId(rawSpan);
  lineage.traceIds[index] = traceId;
  lineage.spanIds[index] = spanId;
  if (reason !== undefined || traceId === undefined) return reason ?? 'missing trace_id';
  if (isAbsent(rawSpan)) return 'missing span_id';
  if (spanId === undefined) return 'invalid span_id: expected 16 or 32 hex digits';

  // parent_id: explicit (all zero = root), else the enclosing node's span_id (tree children).
  let parentId: string | undefined;
  const rawParent = o.parent_id;
  if (!isAbsent(rawParent)) {
    const hex = lineage.parentHex.of(rawParent);
    if (hex === undefined) return 'invalid parent_id: expected 16 or 32 hex digits';
    if (!isZeroSpanId(hex)) parentId = hex;
  } else if (draft.parent !== undefined) {
    parentId = lineage.spanIds[draft.parent];
    if (parentId === undefined) return 'cannot inherit parent_id';
  }

  const rawStart = o.start_time;
  if (isAbsent(rawStart)) return 'missing start_time';
  const startNs = parseTimestamp(rawStart);
  if (startNs === undefined) return 'invalid start_time';
  const rawEnd = o.end_time;
  if (isAbsent(rawEnd)) return 'missing end_time';
  const endNs = parseTimestamp(rawEnd);
  if (endNs === undefined) return 'invalid end_time';

  let name: string;
  const rawName = o.span_name;
  if (isAbsent(rawName)) name = draft.nodeName ?? lineage.random.hex(12);
  else if (typeof rawName === 'string') name = rawName;
  else return 'invalid span_name: expected a string';

  let kind = 0;
  const rawKind = o.span_kind;
  if (!isAbsent(rawKind)) {
    const k = lineage.kind.of(rawKind);
    if (k === undefined) return 'invalid span_kind';
    kind = k;
  }
  const rawSpanType = o.span_type;
  if (!isAbsent(rawSpanType) && !isSpanType(rawSpanType)) {
    return 'invalid span_type';
  }
  const rawTraceType = o.trace_type;
  if (!isAbsent(rawTraceType) && !isTraceType(rawTraceType)) {
    return 'invalid trace_type';
  }
  let code = 0;
  const rawCode = o.status_code;
  if (!isAbsent(rawCode)) {
    const c = lineage.code.of(rawCode);
    if (c === undefined) return 'invalid status_code';
    code = c;
  }
  const message = o.status_message;
  if (!isAbsent(message) && typeof message !== 'string') return 'invalid status_message: expected a string';

  const attributes = attributesOf(o.attributes);
  if (attributes === undefined) return 'invalid attributes: expected an object';

  // newSpan: every field, so one hidden class for all spans (model/span.ts SPAN_FIELDS).
  const span = newSpan(traceId, spanId, name, kind, startNs, endNs, spanStatus(code, typeof message === 'string' ? message : undefined), attributes);
  if (parentId !== undefined) span.parentId = parentId;

  // Lists: absent stays absent; [] is kept (it means something for links and events).
  if (!isAbsent(o.events)) {
    const events = parseEvents(o.events);
    if (typeof events === 'string') return events;
    span.events = events;
  }
  if (!isAbsent(o.links)) {
    const links = parseLinks(o.links);
    if (typeof links === 'string') return links;
    span.links = links;
  }
  if (!isAbsent(o.references)) {
    const references = parseReferences(o.references);
    if (typeof references === 'string') return references;
    span.references = references;
  }
  const sessionId = o.session_id;
  if (!isAbsent(sessionId)) {
    if (typeof sessionId !== 'string') return 'invalid session_id: expected a string';
    span.sessionId = sessionId;
  }
  const userId = o.user_id;
  if (!isAbsent(userId)) {
    if (typeof userId !== 'string') return 'invalid user_id: expected a string';
    span.userId = userId;
  }
  const rawResource = o.resource;
  if (!isAbsent(rawResource)) {
    if (!isJsonObject(rawResource)) return 'invalid resource: expected an object';
    span.resource = attributesOf(rawResource);
  }
  if (!isAbsent(o.scope)) {
    const scope = parseScope(o.scope);
    if (typeof scope === 'string') return scope;
    span.scope = scope;
  }
  const otlp = parseOtlpExtras(o.otlp);
  if (otlp !== undefined) span.otlp = otlp;
  if (draft.invalidSpans) return 'invalid spans: expected an object of child spans';

  // Candidates only: `namespace` resolves the final types (ag-namespace.md §4).
  if (typeof rawSpanType === 'string') span.spanType = rawSpanType;
  if (typeof rawTraceType === 'string') span.traceType = rawTraceType;
  return span;
}
