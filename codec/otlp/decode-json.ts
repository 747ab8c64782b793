// ExportTraceServiceRequest in OTLP/JSON -> canonical spans. The OTLP/JSON rules: ids are hex strings,
// enums integers, 64-bit integers decimal strings (numbers are accepted too), keys lowerCamelCase;
// unknown keys are ignored. As in the protobuf JSON mapping, the proto field names (snake_case) are
// accepted as well, and enum values may be given by name.
//
// A field of the wrong JSON type that the receiver rules cover (ids, times, kind, status code) is decoded
// to a value the rules reject, so only that span fails; any other type error makes the body
// undecodable (400), naming the path.
import { newSpan, SPAN_KIND_NAMES, spanStatus, STATUS_CODE_NAMES, type AttrValue, type Attributes, type OtlpExtras, type Span, type SpanEvent, type SpanLink, type SpanScope } from '../../model/span.ts';
import { flattenInto } from '../../model/attributes/flatten.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import { parseJsonBytes } from '../json/parse.ts';
import { isJsonObject } from '../../model/json-object.ts';
import { NS_LIMIT } from '../../model/time.ts';
import { MAX_VALUE_DEPTH, OtlpDecodeError, OtlpSpanLimitError, OtlpValueLimitError } from './errors.ts';
import type { DecodedRequest } from './decode-proto.ts';

/** Object/array nesting allowed in the raw text: the request's own levels plus the value depth. */
const MAX_JSON_DEPTH = 16 + 3 * MAX_VALUE_DEPTH;

type Obj = Record<string, unknown>;

function fail(path: string, what: string): never {
  throw new OtlpDecodeError(`${path}: ${what}`);
}


/** The member under its lowerCamelCase or its proto name. */
function pick(o: Obj, camel: string, snake: string): unknown {
  const v = o[camel];
  return v !== undefined ? v : o[snake];
}

function list(v: unknown, path: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(path, 'expected an array');
  return v;
}

function str(v: unknown, path: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') fail(path, 'expected a string');
  return v;
}

function uint32(v: unknown, path: string): number {
  if (v === undefined || v === null) return 0;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 0xffffffff) fail(path, 'expected a uint32');
  return n;
}

/** An id: hex, lowercased. A non-string becomes '' so the rules reject the span, not the request. */
function id(v: unknown): string {
  if (typeof v !== 'string') return v === undefined || v === null ? '' : '!';
  return v.toLowerCase();
}

/** fixed64 nanoseconds: a decimal string or an integer below 2^64; anything else is 0n (the rules:
 *  missing time). Twenty digits reach past 2^64, which protobuf's fixed64 cannot carry: such a time is
 *  no time, as in the tracing API (ingest-api.md §4.4). */
function nanos(v: unknown): bigint {
  let n = 0n;
  if (typeof v === 'string') n = /^\d{1,20}$/.test(v) ? BigInt(v) : 0n;
  else if (typeof v === 'number') n = Number.isInteger(v) && v >= 0 ? BigInt(v) : 0n;
  else if (typeof v === 'bigint') n = v >= 0n ? v : 0n;
  return n < NS_LIMIT ? n : 0n;
}

/** An enum by number or by name; -1 (out of every range) when neither. */
function enumValue(v: unknown, names: readonly string[]): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return Number.isInteger(v) ? v : -1;
  if (typeof v === 'string') {
    const i = names.indexOf(v);
    if (i >= 0) return i;
    return /^-?\d+$/.test(v) ? Number(v) : -1;
  }
  return -1;
}

/**
 * Decodes an OTLP/JSON body. Throws OtlpDecodeError when it is not JSON or not the request's shape, and
 * OtlpValueLimitError when it holds more than `maxValues` objects and arrays, counted on the bytes before
 * JSON.parse builds any (a span is one of them, so this also bounds what a body of empty spans costs), and
 * OtlpSpanLimitError once the spans read so far plus the next scopeSpans list's would exceed `maxSpans`:
 * checked on each list's length before its spans are read, so no span beyond the limit is decoded.
 */
export function decodeExportRequestJson(bytes: Uint8Array, maxSpans = Number.POSITIVE_INFINITY, maxValues = Number.POSITIVE_INFINITY): DecodedRequest {
  const parsed = parseJsonBytes(bytes, MAX_JSON_DEPTH, maxValues, 'the OTLP/JSON limit');
  if (!parsed.ok) {
    if (parsed.problem === 'too_many_values') throw new OtlpValueLimitError(parsed.message);
    throw new OtlpDecodeError(parsed.message);
  }
  const root = parsed.value;
  if (!isJsonObject(root)) fail('$', 'expected an object');
  const spans: Span[] = [];
  const rsList = list(pick(root, 'resourceSpans', 'resource_spans'), 'resourceSpans');
  for (let i = 0; i < rsList.length; i++) {
    const rs = rsList[i];
    const rsPath = `resourceSpans[${i}]`;
    if (!isJsonObject(rs)) fail(rsPath, 'expected an object');
    let resource: Attributes | undefined;
    const res = rs.resource;
    if (res !== undefined && res !== null) {
      if (!isJsonObject(res)) fail(`${rsPath}.resource`, 'expected an object');
      const attrs = readAttributes(res.attributes, `${rsPath}.resource.attributes`);
      if (attrs.size > 0) resource = attrs;
    }
    const resourceSchemaUrl = str(pick(rs, 'schemaUrl', 'schema_url'), `${rsPath}.schemaUrl`);
    const ssList = list(pick(rs, 'scopeSpans', 'scope_spans'), `${rsPath}.scopeSpans`);
    for (let j = 0; j < ssList.length; j++) {
      const ss = ssList[j];
      const ssPath = `${rsPath}.scopeSpans[${j}]`;
      if (!isJsonObject(ss)) fail(ssPath, 'expected an object');
      const scope = readScope(ss.scope, `${ssPath}.scope`);
      const scopeSchemaUrl = str(pick(ss, 'schemaUrl', 'schema_url'), `${ssPath}.schemaUrl`);
      const spanList = list(ss.spans, `${ssPath}.spans`);
      if (spans.length + spanList.length > maxSpans) throw new OtlpSpanLimitError(maxSpans);
      for (let k = 0; k < spanList.length; k++) {
        spans.push(readSpan(spanList[k], `${ssPath}.spans[${k}]`, resource, scope, resourceSchemaUrl, scopeSchemaUrl));
      }
    }
  }
  return { spans };
}

function readScope(v: unknown, path: string): SpanScope | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isJsonObject(v)) fail(path, 'expected an object');
  const name = str(v.name, `${path}.name`);
  const version = str(v.version, `${path}.version`);
  const attrs = readAttributes(v.attributes, `${path}.attributes`);
  if (name === '' && version === '' && attrs.size === 0) return undefined;
  const scope: SpanScope = { name };
  if (version !== '') scope.version = version;
  if (attrs.size > 0) scope.attributes = attrs;
  return scope;
}

function readSpan(
  v: unknown,
  path: string,
  resource: Attributes | undefined,
  scope: SpanScope | undefined,
  resourceSchemaUrl: string,
  scopeSchemaUrl: string,
): Span {
  if (!isJsonObject(v)) fail(path, 'expected an object');
  const statusIn = v.status;
  let status = spanStatus(0, undefined);
  if (statusIn !== undefined && statusIn !== null) {
    if (!isJsonObject(statusIn)) fail(`${path}.status`, 'expected an object');
    const message = str(statusIn.message, `${path}.status.message`);
    status = spanStatus(enumValue(statusIn.code, STATUS_CODE_NAMES), message === '' ? undefined : message);
  }
  // newSpan: every field, so one hidden class for all spans (model/span.ts SPAN_FIELDS).
  const span = newSpan(
    id(pick(v, 'traceId', 'trace_id')),
    id(pick(v, 'spanId', 'span_id')),
    str(v.name, `${path}.name`),
    enumValue(v.kind, SPAN_KIND_NAMES),
    nanos(pick(v, 'startTimeUnixNano', 'start_time_unix_nano')),
    nanos(pick(v, 'endTimeUnixNano', 'end_time_unix_nano')),
    status,
    readAttributes(v.attributes, `${path}.attributes`),
  );
  const parentId = id(pick(v, 'parentSpanId', 'parent_span_id'));
  if (parentId !== '') span.parentId = parentId;

  const eventsIn = list(v.events, `${path}.events`);
  if (eventsIn.length > 0) {
    const events: SpanEvent[] = [];
    for (let i = 0; i < eventsIn.length; i++) {
      const e = eventsIn[i];
      const ePath = `${path}.events[${i}]`;
      if (!isJsonObject(e)) fail(ePath, 'expected an object');
      const event: SpanEvent = {
        name: str(e.name, `${ePath}.name`),
        timeNs: nanos(pick(e, 'timeUnixNano', 'time_unix_nano')),
        attributes: readAttributes(e.attributes, `${ePath}.attributes`),
      };
      const dropped = uint32(pick(e, 'droppedAttributesCount', 'dropped_attributes_count'), `${ePath}.droppedAttributesCount`);
      if (dropped !== 0) event.droppedAttributesCount = dropped;
      events.push(event);
    }
    span.events = events;
  }

  const linksIn = list(v.links, `${path}.links`);
  if (linksIn.length > 0) {
    const links: SpanLink[] = [];
    for (let i = 0; i < linksIn.length; i++) {
      const l = linksIn[i];
      const lPath = `${path}.links[${i}]`;
      if (!isJsonObject(l)) fail(lPath, 'expected an object');
      const link: SpanLink = {
        traceId: id(pick(l, 'traceId', 'trace_id')),
        spanId: id(pick(l, 'spanId', 'span_id')),
        attributes: readAttributes(l.attributes, `${lPath}.attributes`),
      };
      const traceState = str(pick(l, 'traceState', 'trace_state'), `${lPath}.traceState`);
      if (traceState !== '') link.traceState = traceState;
      const flags = uint32(l.flags, `${lPath}.flags`);
      if (flags !== 0) link.flags = flags;
      const dropped = uint32(pick(l, 'droppedAttributesCount', 'dropped_attributes_count'), `${lPath}.droppedAttributesCount`);
      if (dropped !== 0) link.droppedAttributesCount = dropped;
      links.push(link);
    }
    span.links = links;
  }

  if (resource !== undefined) span.resource = resource;
  if (scope !== undefined) span.scope = scope;

  const otlp: OtlpExtras = {};
  let anyExtra = false;
  const traceState = str(pick(v, 'traceState', 'trace_state'), `${path}.traceState`);
  if (traceState !== '') { otlp.traceState = traceState; anyExtra = true; }
  const flags = uint32(v.flags, `${path}.flags`);
  if (flags !== 0) { otlp.flags = flags; anyExtra = true; }
  const dAttrs = uint32(pick(v, 'droppedAttributesCount', 'dropped_attributes_count'), `${path}.droppedAttributesCount`);
  if (dAttrs !== 0) { otlp.droppedAttributesCount = dAttrs; anyExtra = true; }
  const dEvents = uint32(pick(v, 'droppedEventsCount', 'dropped_events_count'), `${path}.droppedEventsCount`);
  if (dEvents !== 0) { otlp.droppedEventsCount = dEvents; anyExtra = true; }
  const dLinks = uint32(pick(v, 'droppedLinksCount', 'dropped_links_count'), `${path}.droppedLinksCount`);
  if (dLinks !== 0) { otlp.droppedLinksCount = dLinks; anyExtra = true; }
  if (resourceSchemaUrl !== '') { otlp.resourceSchemaUrl = resourceSchemaUrl; anyExtra = true; }
  if (scopeSchemaUrl !== '') { otlp.scopeSchemaUrl = scopeSchemaUrl; anyExtra = true; }
  if (anyExtra) span.otlp = otlp;
  return span;
}

// ---- attributes ---------------------------------------------------------------------------------

function readAttributes(v: unknown, path: string): AttributeList {
  const out = new AttributeList();
  const kvs = list(v, path);
  for (let i = 0; i < kvs.length; i++) {
    const kv = kvs[i];
    const kvPath = `${path}[${i}]`;
    if (!isJsonObject(kv)) fail(kvPath, 'expected an object');
    const key = str(kv.key, `${kvPath}.key`);
    const value = anyValue(kv.value, `${kvPath}.value`, 0);
    if (value instanceof Map || (Array.isArray(value) && hasObject(value))) flattenInto(value, key, out);
    else out.set(key, value as AttrValue);
  }
  return out;
}

function hasObject(a: unknown[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== null && typeof a[i] === 'object') return true;
  return false;
}

/** A 64-bit integer: number when exact, bigint beyond +-(2^53-1). */
function int64(v: unknown, path: string): number | bigint {
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) fail(path, 'expected an integer');
    return v;
  }
  if (typeof v === 'bigint') return v;
  if (typeof v === 'string' && /^-?\d{1,20}$/.test(v)) {
    if (v.length < 16) return Number(v);
    const b = BigInt(v);
    return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b;
  }
  fail(path, 'expected an int64');
}

function double(v: unknown, path: string): number | string {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string') {
    if (v === 'NaN' || v === 'Infinity' || v === '-Infinity') return v;
    const n = Number(v);
    if (v.trim() !== '' && Number.isFinite(n)) return n;
  }
  fail(path, 'expected a double');
}

/** AnyValue -> scalar, scalar array, or a Map / array for flattenInto; {} -> null. */
function anyValue(v: unknown, path: string, depth: number): unknown {
  if (v === undefined || v === null) return null;
  if (!isJsonObject(v)) fail(path, 'expected an AnyValue object');
  let x: unknown;
  if ((x = pick(v, 'stringValue', 'string_value')) !== undefined) return str(x, `${path}.stringValue`);
  if ((x = pick(v, 'boolValue', 'bool_value')) !== undefined) {
    if (typeof x !== 'boolean') fail(`${path}.boolValue`, 'expected a boolean');
    return x;
  }
  if ((x = pick(v, 'intValue', 'int_value')) !== undefined) return int64(x, `${path}.intValue`);
  if ((x = pick(v, 'doubleValue', 'double_value')) !== undefined) return double(x, `${path}.doubleValue`);
  if ((x = pick(v, 'bytesValue', 'bytes_value')) !== undefined) {
    const s = str(x, `${path}.bytesValue`);
    // Accept either base64 alphabet; hand on the standard one.
    return Buffer.from(s, 'base64').toString('base64');
  }
  if ((x = pick(v, 'arrayValue', 'array_value')) !== undefined) {
    if (depth >= MAX_VALUE_DEPTH) fail(path, `values nested deeper than ${MAX_VALUE_DEPTH}`);
    if (!isJsonObject(x)) fail(`${path}.arrayValue`, 'expected an object');
    const items = list(x.values, `${path}.arrayValue.values`);
    const out: unknown[] = new Array(items.length);
    for (let i = 0; i < items.length; i++) out[i] = anyValue(items[i], `${path}.arrayValue.values[${i}]`, depth + 1);
    return out;
  }
  if ((x = pick(v, 'kvlistValue', 'kvlist_value')) !== undefined) {
    if (depth >= MAX_VALUE_DEPTH) fail(path, `values nested deeper than ${MAX_VALUE_DEPTH}`);
    if (!isJsonObject(x)) fail(`${path}.kvlistValue`, 'expected an object');
    const items = list(x.values, `${path}.kvlistValue.values`);
    const out = new Map<string, unknown>();
    for (let i = 0; i < items.length; i++) {
      const kv = items[i];
      const kvPath = `${path}.kvlistValue.values[${i}]`;
      if (!isJsonObject(kv)) fail(kvPath, 'expected an object');
      out.set(str(kv.key, `${kvPath}.key`), anyValue(kv.value, `${kvPath}.value`, depth + 1));
    }
    return out;
  }
  return null;
}
