// The parts of a tracing-API span below the top-level fields (ingest-api.md §4.1, §4.2): events, links,
// references, scope and the `otlp` extension. Each parser returns the canonical value or, on the first
// problem, the rejection reason as a string (errors are values; nothing here throws on input).
import { flattenObject } from '../../model/attributes/flatten.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import { normaliseSpanId, normaliseTraceId, normaliseUuid } from '../../model/ids.ts';
import { parseTimestamp } from '../../model/time.ts';
import { isJsonObject } from '../../model/json-object.ts';
import type {
  Attributes, OtlpExtras, SpanEvent, SpanLink, SpanReference, SpanScope,
} from '../../model/span.ts';

/** Absent means missing or JSON null (ingest-api.md, terms). */
export function isAbsent(v: unknown): v is undefined | null {
  return v === undefined || v === null;
}

/**
 * An attribute object (absent: empty) flattened, or undefined when it is not an object. The body reader
 * hands the attributes of spans and events over already flattened (codec/tracing/body-reader.ts).
 */
export function attributesOf(v: unknown): Attributes | undefined {
  if (isAbsent(v)) return new AttributeList();
  if (v instanceof AttributeList) return v;
  return isJsonObject(v) ? flattenObject(v) : undefined;
}

/** OTLP counts and flags are uint32 on the wire. */
function isUint32(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
}

export function parseEvents(raw: unknown): SpanEvent[] | string {
  if (!Array.isArray(raw)) return 'invalid events: expected an array';
  const out: SpanEvent[] = new Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const e = raw[i];
    if (!isJsonObject(e)) return `invalid events[${i}]: expected an object`;
    const name = e.name;
    if (isAbsent(name)) return `missing events[${i}].name`;
    if (typeof name !== 'string') return `invalid events[${i}].name: expected a string`;
    const ts = e.timestamp;
    if (isAbsent(ts)) return `missing events[${i}].timestamp`;
    const timeNs = parseTimestamp(ts);
    if (timeNs === undefined) return `invalid events[${i}].timestamp`;
    const attributes = attributesOf(e.attributes);
    if (attributes === undefined) return `invalid events[${i}].attributes: expected an object`;
    const event: SpanEvent = { name, timeNs, attributes };
    const extra = e.otlp;
    if (isJsonObject(extra)) eventOtlpInto(extra, event);
    out[i] = event;
  }
  return out;
}

export function parseLinks(raw: unknown): SpanLink[] | string {
  if (!Array.isArray(raw)) return 'invalid links: expected an array';
  const out: SpanLink[] = new Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const l = raw[i];
    if (!isJsonObject(l)) return `invalid links[${i}]: expected an object`;
    if (isAbsent(l.trace_id)) return `missing links[${i}].trace_id`;
    const traceId = normaliseTraceId(l.trace_id);
    if (traceId === undefined) return `invalid links[${i}].trace_id`;
    if (isAbsent(l.span_id)) return `missing links[${i}].span_id`;
    const spanId = normaliseSpanId(l.span_id);
    if (spanId === undefined) return `invalid links[${i}].span_id`;
    const attributes = attributesOf(l.attributes);
    if (attributes === undefined) return `invalid links[${i}].attributes: expected an object`;
    const link: SpanLink = { traceId, spanId, attributes };
    const extra = l.otlp;
    if (isJsonObject(extra)) linkOtlpInto(extra, link);
    out[i] = link;
  }
  return out;
}

export function parseReferences(raw: unknown): SpanReference[] | string {
  if (!Array.isArray(raw)) return 'invalid references: expected an array';
  const out: SpanReference[] = new Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const r = raw[i];
    if (!isJsonObject(r)) return `invalid references[${i}]: expected an object`;
    let id: string | undefined;
    if (!isAbsent(r.id)) {
      id = normaliseUuid(r.id);
      if (id === undefined) return `invalid references[${i}].id: expected a UUID`;
    }
    const slug = r.slug;
    if (!isAbsent(slug) && typeof slug !== 'string') return `invalid references[${i}].slug: expected a string`;
    const version = r.version;
    if (!isAbsent(version) && typeof version !== 'string') {
      return `invalid references[${i}].version: expected a string`;
    }
    const attributes = attributesOf(r.attributes);
    if (attributes === undefined) return `invalid references[${i}].attributes: expected an object`;
    const ref: SpanReference = { attributes };
    if (id !== undefined) ref.id = id;
    if (typeof slug === 'string') ref.slug = slug;
    if (typeof version === 'string') ref.version = version;
    out[i] = ref;
  }
  return out;
}

/** `{name, version?, attributes?}`; attributes are left out when empty, as the OTLP receiver does. */
export function parseScope(raw: unknown): SpanScope | string {
  if (!isJsonObject(raw)) return 'invalid scope: expected an object';
  const name = raw.name;
  if (typeof name !== 'string') return 'invalid scope: name must be a string';
  const version = raw.version;
  if (!isAbsent(version) && typeof version !== 'string') return 'invalid scope: version must be a string';
  const attributes = attributesOf(raw.attributes);
  if (attributes === undefined) return 'invalid scope: attributes must be an object';
  const scope: SpanScope = { name };
  if (typeof version === 'string') scope.version = version;
  if (attributes.size > 0) scope.attributes = attributes;
  return scope;
}

/**
 * The span's `otlp` extension (snake_case JSON -> camelCase), or undefined when it is absent, empty,
 * or holds an unknown member or a member of the wrong type: then it is ignored as a whole, never
 * rejected (ingest-api.md §4.1), because a half-carried extension would forward wrong OTLP.
 */
export function parseOtlpExtras(raw: unknown): OtlpExtras | undefined {
  if (!isJsonObject(raw)) return undefined;
  const out: OtlpExtras = {};
  let any = false;
  for (const key in raw) {
    const v = raw[key];
    if (isAbsent(v)) continue;
    switch (key) {
      case 'trace_state':
        if (typeof v !== 'string') return undefined;
        out.traceState = v;
        break;
      case 'resource_schema_url':
        if (typeof v !== 'string') return undefined;
        out.resourceSchemaUrl = v;
        break;
      case 'scope_schema_url':
        if (typeof v !== 'string') return undefined;
        out.scopeSchemaUrl = v;
        break;
      case 'flags':
        if (!isUint32(v)) return undefined;
        out.flags = v;
        break;
      case 'dropped_attributes_count':
        if (!isUint32(v)) return undefined;
        out.droppedAttributesCount = v;
        break;
      case 'dropped_events_count':
        if (!isUint32(v)) return undefined;
        out.droppedEventsCount = v;
        break;
      case 'dropped_links_count':
        if (!isUint32(v)) return undefined;
        out.droppedLinksCount = v;
        break;
      default:
        return undefined;
    }
    any = true;
  }
  return any ? out : undefined;
}

/** An event's `otlp` sub-object `{dropped_attributes_count}`; same all-or-nothing rule. */
function eventOtlpInto(raw: Record<string, unknown>, event: SpanEvent): void {
  let dropped: number | undefined;
  for (const key in raw) {
    const v = raw[key];
    if (isAbsent(v)) continue;
    if (key !== 'dropped_attributes_count' || !isUint32(v)) return;
    dropped = v;
  }
  if (dropped !== undefined) event.droppedAttributesCount = dropped;
}

/** A link's `otlp` sub-object `{trace_state, flags, dropped_attributes_count}`; same rule. */
function linkOtlpInto(raw: Record<string, unknown>, link: SpanLink): void {
  let traceState: string | undefined;
  let flags: number | undefined;
  let dropped: number | undefined;
  for (const key in raw) {
    const v = raw[key];
    if (isAbsent(v)) continue;
    if (key === 'trace_state' && typeof v === 'string') traceState = v;
    else if (key === 'flags' && isUint32(v)) flags = v;
    else if (key === 'dropped_attributes_count' && isUint32(v)) dropped = v;
    else return;
  }
  if (traceState !== undefined) link.traceState = traceState;
  if (flags !== undefined) link.flags = flags;
  if (dropped !== undefined) link.droppedAttributesCount = dropped;
}
