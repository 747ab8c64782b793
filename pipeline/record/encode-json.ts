// The JSON span record (span-record.md "JSON encoding"): one object per span, snake_case keys in the
// fixed order below, names and values as the tracing API's flat span (ingest-api.md §4), so a written
// record can be POSTed back to /tracing/spans/ingest. This is the hot path of file and Kafka output,
// hence the hand-written string building (strings through quoteJson, numbers through their own text).
import { SPAN_KIND_NAMES, STATUS_CODE_NAMES } from '../span.ts';
import type { OtlpExtras, Span, SpanEvent, SpanLink, SpanReference, SpanScope } from '../span.ts';
import { nestedShape } from '../attributes/unflatten.ts';
import { attributesJson, plainValueJson } from './json-values.ts';
import { quoteJson } from './quote.ts';
import { formatTimeNs } from './time-format.ts';

export type AttributesShape = 'flat' | 'nested';

export interface JsonEncodeOptions {
  /** `nested` writes span `attributes` as the unflattened tree (ag-namespace.md §1.4); default `flat`. */
  attributesShape?: AttributesShape;
}

/** One span as one JSON object, without a trailing newline. */
export function encodeSpanJson(span: Span, options?: JsonEncodeOptions): string {
  const nested = options?.attributesShape === 'nested';
  let out = '{"trace_id":' + quoteJson(span.traceId) + ',"span_id":' + quoteJson(span.spanId);
  if (span.parentId !== undefined) out += ',"parent_id":' + quoteJson(span.parentId);
  out += ',"span_name":' + quoteJson(span.name);
  out += ',"span_kind":"' + kindName(span.kind) + '"';
  if (span.spanType !== undefined) out += ',"span_type":' + quoteJson(span.spanType);
  if (span.traceType !== undefined) out += ',"trace_type":' + quoteJson(span.traceType);
  out += ',"start_time":"' + formatTimeNs(span.startNs) + '","end_time":"' + formatTimeNs(span.endNs) + '"';
  out += ',"status_code":"' + statusName(span.status.code) + '"';
  if (span.status.message !== undefined) out += ',"status_message":' + quoteJson(span.status.message);
  if (span.sessionId !== undefined) out += ',"session_id":' + quoteJson(span.sessionId);
  if (span.userId !== undefined) out += ',"user_id":' + quoteJson(span.userId);
  out += ',"attributes":' + (nested ? plainValueJson(nestedShape(span.attributes)) : attributesJson(span.attributes));
  if (span.events !== undefined) out += ',"events":' + eventsJson(span.events);
  if (span.links !== undefined) out += ',"links":' + linksJson(span.links);
  if (span.references !== undefined) out += ',"references":' + referencesJson(span.references);
  if (span.resource !== undefined) out += ',"resource":' + attributesJson(span.resource);
  if (span.scope !== undefined) out += ',"scope":' + scopeJson(span.scope);
  if (span.otlp !== undefined) {
    const otlp = otlpJson(span.otlp);
    if (otlp !== '') out += ',"otlp":{' + otlp + '}';
  }
  return out + '}';
}

/** Spans as JSON lines: each record followed by `\n` (empty string for no spans). */
export function encodeBatchJsonLines(spans: readonly Span[], options?: JsonEncodeOptions): string {
  let out = '';
  for (let i = 0; i < spans.length; i++) out += encodeSpanJson(spans[i], options) + '\n';
  return out;
}

/**
 * Spans as JSON lines in UTF-8, for writers. Each record is copied into one growing buffer as soon as it
 * is built, instead of joining a batch into one huge string first: a batch-sized string is a deep rope
 * that costs a full flattening pass and much garbage before it can be written (measured: about a third
 * of the file exporter's time).
 */
export function encodeBatchJsonLinesBuffer(spans: readonly Span[], options?: JsonEncodeOptions): Buffer {
  let buffer = Buffer.allocUnsafe(Math.max(1024, spans.length * 1024));
  let used = 0;
  for (let i = 0; i < spans.length; i++) {
    const line = encodeSpanJson(spans[i], options);
    // UTF-8 needs at most 3 bytes per UTF-16 unit; write() would silently cut a line that does not fit.
    const worst = line.length * 3 + 1;
    if (buffer.length - used < worst) {
      const grown = Buffer.allocUnsafe(Math.max(buffer.length * 2, used + worst));
      buffer.copy(grown, 0, 0, used);
      buffer = grown;
    }
    used += buffer.write(line, used, 'utf8');
    buffer[used++] = NEWLINE;
  }
  return buffer.subarray(0, used);
}

const NEWLINE = 0x0a;

// The enums are always written by name. An out-of-range number (a bug upstream) would otherwise give
// `undefined` in the text; UNSPECIFIED / UNSET are what the API reads for an absent value.
function kindName(kind: number): string {
  return SPAN_KIND_NAMES[kind] ?? SPAN_KIND_NAMES[0];
}

function statusName(code: number): string {
  return STATUS_CODE_NAMES[code] ?? STATUS_CODE_NAMES[0];
}

function eventsJson(events: readonly SpanEvent[]): string {
  let out = '[';
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    if (i > 0) out += ',';
    out += '{"name":' + quoteJson(event.name) + ',"timestamp":"' + formatTimeNs(event.timeNs) + '"';
    out += ',"attributes":' + attributesJson(event.attributes);
    if (event.droppedAttributesCount !== undefined) {
      out += ',"otlp":{"dropped_attributes_count":' + event.droppedAttributesCount + '}';
    }
    out += '}';
  }
  return out + ']';
}

function linksJson(links: readonly SpanLink[]): string {
  let out = '[';
  for (let i = 0; i < links.length; i++) {
    const link = links[i];
    if (i > 0) out += ',';
    out += '{"trace_id":' + quoteJson(link.traceId) + ',"span_id":' + quoteJson(link.spanId);
    out += ',"attributes":' + attributesJson(link.attributes);
    let otlp = '';
    if (link.traceState !== undefined) otlp += ',"trace_state":' + quoteJson(link.traceState);
    if (link.flags !== undefined) otlp += ',"flags":' + link.flags;
    if (link.droppedAttributesCount !== undefined) otlp += ',"dropped_attributes_count":' + link.droppedAttributesCount;
    if (otlp !== '') out += ',"otlp":{' + otlp.slice(1) + '}';
    out += '}';
  }
  return out + ']';
}

function referencesJson(references: readonly SpanReference[]): string {
  let out = '[';
  for (let i = 0; i < references.length; i++) {
    const reference = references[i];
    out += i > 0 ? ',{' : '{';
    if (reference.id !== undefined) out += '"id":' + quoteJson(reference.id) + ',';
    if (reference.slug !== undefined) out += '"slug":' + quoteJson(reference.slug) + ',';
    if (reference.version !== undefined) out += '"version":' + quoteJson(reference.version) + ',';
    out += '"attributes":' + attributesJson(reference.attributes) + '}';
  }
  return out + ']';
}

function scopeJson(scope: SpanScope): string {
  let out = '{"name":' + quoteJson(scope.name);
  if (scope.version !== undefined) out += ',"version":' + quoteJson(scope.version);
  if (scope.attributes !== undefined) out += ',"attributes":' + attributesJson(scope.attributes);
  return out + '}';
}

/** The members of the span-level `otlp` object (without braces); empty when none is set. */
function otlpJson(otlp: OtlpExtras): string {
  let out = '';
  if (otlp.traceState !== undefined) out += ',"trace_state":' + quoteJson(otlp.traceState);
  if (otlp.flags !== undefined) out += ',"flags":' + otlp.flags;
  if (otlp.droppedAttributesCount !== undefined) out += ',"dropped_attributes_count":' + otlp.droppedAttributesCount;
  if (otlp.droppedEventsCount !== undefined) out += ',"dropped_events_count":' + otlp.droppedEventsCount;
  if (otlp.droppedLinksCount !== undefined) out += ',"dropped_links_count":' + otlp.droppedLinksCount;
  if (otlp.resourceSchemaUrl !== undefined) out += ',"resource_schema_url":' + quoteJson(otlp.resourceSchemaUrl);
  if (otlp.scopeSchemaUrl !== undefined) out += ',"scope_schema_url":' + quoteJson(otlp.scopeSchemaUrl);
  return out === '' ? '' : out.slice(1);
}
