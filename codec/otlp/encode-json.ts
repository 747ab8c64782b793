// Canonical spans -> ExportTraceServiceRequest in OTLP/JSON: hex ids, integer enums, 64-bit integers
// as decimal strings, lowerCamelCase keys, default values left out.
import type { AttrValue, Attributes, Span, SpanScope } from '../../model/span.ts';
import { agExtras, groupSpans } from './group.ts';

type Json = Record<string, unknown>;

const INT64_MIN = -(2 ** 63);
const INT64_LIMIT = 2 ** 63;

/** The request as a JSON-ready object (every bigint already a string). */
export function exportRequestJson(spans: Span[]): Json {
  const groups = groupSpans(spans);
  const resourceSpans: Json[] = [];
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g];
    const rs: Json = {};
    if (group.resource !== undefined) rs.resource = { attributes: attributesJson(group.resource) };
    const scopeSpans: Json[] = [];
    for (let s = 0; s < group.scopes.length; s++) {
      const sg = group.scopes[s];
      const ss: Json = {};
      if (sg.scope !== undefined) ss.scope = scopeJson(sg.scope);
      const out: Json[] = new Array(sg.spans.length);
      for (let i = 0; i < sg.spans.length; i++) out[i] = spanJson(sg.spans[i]);
      ss.spans = out;
      if (sg.schemaUrl !== '') ss.schemaUrl = sg.schemaUrl;
      scopeSpans.push(ss);
    }
    rs.scopeSpans = scopeSpans;
    if (group.schemaUrl !== '') rs.schemaUrl = group.schemaUrl;
    resourceSpans.push(rs);
  }
  return { resourceSpans };
}

/** Encodes spans as one OTLP/JSON ExportTraceServiceRequest (UTF-8 text). */
export function encodeExportRequestJson(spans: Span[]): string {
  return JSON.stringify(exportRequestJson(spans));
}

function scopeJson(scope: SpanScope): Json {
  const out: Json = { name: scope.name };
  if (scope.version !== undefined && scope.version !== '') out.version = scope.version;
  if (scope.attributes !== undefined && scope.attributes.size > 0) out.attributes = attributesJson(scope.attributes);
  return out;
}

function spanJson(span: Span): Json {
  const otlp = span.otlp;
  const out: Json = { traceId: span.traceId, spanId: span.spanId };
  if (otlp?.traceState) out.traceState = otlp.traceState;
  if (span.parentId) out.parentSpanId = span.parentId;
  if (otlp?.flags) out.flags = otlp.flags;
  out.name = span.name;
  if (span.kind !== 0) out.kind = span.kind;
  out.startTimeUnixNano = span.startNs.toString();
  out.endTimeUnixNano = span.endNs.toString();
  const attributes = attributesJson(span.attributes);
  const extras = agExtras(span);
  if (extras !== undefined) for (let i = 0; i < extras.length; i++) attributes.push(keyValueJson(extras[i][0], extras[i][1]));
  if (attributes.length > 0) out.attributes = attributes;
  if (otlp?.droppedAttributesCount) out.droppedAttributesCount = otlp.droppedAttributesCount;
  const events = span.events;
  if (events !== undefined && events.length > 0) {
    const list: Json[] = new Array(events.length);
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      const ev: Json = { timeUnixNano: e.timeNs.toString(), name: e.name };
      if (e.attributes.size > 0) ev.attributes = attributesJson(e.attributes);
      if (e.droppedAttributesCount) ev.droppedAttributesCount = e.droppedAttributesCount;
      list[i] = ev;
    }
    out.events = list;
  }
  if (otlp?.droppedEventsCount) out.droppedEventsCount = otlp.droppedEventsCount;
  const links = span.links;
  if (links !== undefined && links.length > 0) {
    const list: Json[] = new Array(links.length);
    for (let i = 0; i < links.length; i++) {
      const l = links[i];
      const link: Json = { traceId: l.traceId, spanId: l.spanId };
      if (l.traceState) link.traceState = l.traceState;
      if (l.attributes.size > 0) link.attributes = attributesJson(l.attributes);
      if (l.droppedAttributesCount) link.droppedAttributesCount = l.droppedAttributesCount;
      if (l.flags) link.flags = l.flags;
      list[i] = link;
    }
    out.links = list;
  }
  if (otlp?.droppedLinksCount) out.droppedLinksCount = otlp.droppedLinksCount;
  const status: Json = {};
  if (span.status.message) status.message = span.status.message;
  if (span.status.code !== 0) status.code = span.status.code;
  out.status = status;
  return out;
}

function attributesJson(attrs: Attributes): Json[] {
  const out: Json[] = [];
  for (const [k, v] of attrs) out.push(keyValueJson(k, v));
  return out;
}

function keyValueJson(key: string, value: AttrValue): Json {
  return { key, value: anyValueJson(value) };
}

function anyValueJson(v: AttrValue): Json {
  switch (typeof v) {
    case 'string':
      return { stringValue: v };
    case 'boolean':
      return { boolValue: v };
    case 'number':
      if (Number.isInteger(v) && v >= INT64_MIN && v < INT64_LIMIT) return { intValue: BigInt(v).toString() };
      // proto3 JSON writes non-finite doubles by name.
      return { doubleValue: Number.isFinite(v) ? v : String(v) };
    case 'bigint':
      if (v >= -(2n ** 63n) && v < 2n ** 63n) return { intValue: v.toString() };
      return { doubleValue: Number(v) };
    case 'object':
      if (v === null) return {};
      {
        const values: Json[] = new Array(v.length);
        for (let i = 0; i < v.length; i++) values[i] = anyValueJson(v[i]);
        return { arrayValue: { values } };
      }
  }
  return {};
}
