// `POST /simple/traces/` (ingest-api.md §8): one self-contained event becomes one root span. The body is
// checked here (422 with exact loc/type), then turned into ONE flat tracing-API span object that goes
// through the same span checks and namespace as every other request.
import { isJsonObject } from '../../model/json-object.ts';
import { normaliseSpanId, normaliseTraceId, normaliseUuid } from '../../model/ids.ts';
import { REFERENCE_KEYS } from '../../model/span.ts';
import type { ValidationItem } from './replies.ts';
import { flagsFor } from '../../exporters/store/simple-view.ts';


const ORIGINS = ['custom', 'human', 'auto'] as const;
const KINDS = ['adhoc', 'eval', 'play'] as const;
const CHANNELS = ['api', 'sdk', 'web', 'otlp'] as const;
const SLUG = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

type JsonObject = Record<string, unknown>;

/** A checked simple trace: enums defaulted, the other fields exactly as received. */
export interface SimpleTrace {
  origin: (typeof ORIGINS)[number];
  kind: (typeof KINDS)[number];
  channel: (typeof CHANNELS)[number];
  data: JsonObject;
  tags?: JsonObject;
  meta?: JsonObject;
  references?: JsonObject;
  links?: JsonObject | unknown[];
}


type Loc = Array<string | number>;

function problem(items: ValidationItem[], loc: Loc, type: string, msg: string): void {
  items.push({ loc, msg, type });
}

/** An enum field: undefined when absent, else the value, or an `enum` problem (undefined). */
function enumField<T extends string>(trace: JsonObject, field: string, allowed: readonly T[], items: ValidationItem[]): T | undefined {
  const v = trace[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  problem(items, ['body', 'trace', field], 'enum', `Input should be ${allowed.map((a) => `'${a}'`).join(', ')}`);
  return undefined;
}

/** Tag leaves: string, boolean, or the integers 0/1; nested objects allowed (§8.1). */
function checkTags(tags: JsonObject, items: ValidationItem[]): void {
  const stack: Array<{ obj: JsonObject; loc: Loc }> = [{ obj: tags, loc: ['body', 'trace', 'tags'] }];
  while (stack.length > 0) {
    const { obj, loc } = stack.pop() as { obj: JsonObject; loc: Loc };
    for (const key of Object.keys(obj)) {
      const v = obj[key];
      if (typeof v === 'string' || typeof v === 'boolean' || v === 0 || v === 1) continue;
      if (isJsonObject(v)) stack.push({ obj: v, loc: [...loc, key] });
      else problem(items, [...loc, key], 'string_type', 'Tag values should be strings, booleans, 0 or 1');
    }
  }
}

function checkReferences(refs: JsonObject, items: ValidationItem[]): void {
  for (const key of Object.keys(refs)) {
    if (!REFERENCE_KEYS.has(key)) continue; // other keys (e.g. `selector`) are carried as they are
    const entry = refs[key];
    if (entry === null) continue;
    const loc: Loc = ['body', 'trace', 'references', key];
    if (!isJsonObject(entry)) {
      problem(items, loc, 'dict_type', 'Input should be a valid dictionary');
      continue;
    }
    if (entry.id != null && normaliseUuid(entry.id) === undefined) {
      problem(items, [...loc, 'id'], 'uuid_parsing', 'Input should be a valid UUID');
    }
    if (entry.slug != null) {
      if (typeof entry.slug !== 'string') problem(items, [...loc, 'slug'], 'string_type', 'Input should be a valid string');
      else if (!SLUG.test(entry.slug)) {
        problem(items, [...loc, 'slug'], 'string_pattern_mismatch', `String should match pattern '${SLUG.source}'`);
      }
    }
    if (entry.version != null && typeof entry.version !== 'string') {
      problem(items, [...loc, 'version'], 'string_type', 'Input should be a valid string');
    }
  }
}

function checkLinkId(link: JsonObject, field: 'trace_id' | 'span_id', loc: Loc, items: ValidationItem[]): void {
  const v = link[field];
  if (v === undefined || v === null) problem(items, [...loc, field], 'missing', 'Field required');
  else if (typeof v !== 'string') problem(items, [...loc, field], 'string_type', 'Input should be a valid string');
  else if ((field === 'trace_id' ? normaliseTraceId(v) : normaliseSpanId(v)) === undefined) {
    const digits = field === 'trace_id' ? 32 : 16;
    problem(items, [...loc, field], 'string_pattern_mismatch', `Expected a non-zero ${digits}-hex-digit id`);
  }
}

function checkLink(link: unknown, loc: Loc, items: ValidationItem[]): void {
  if (!isJsonObject(link)) {
    problem(items, loc, 'dict_type', 'Input should be a valid dictionary');
    return;
  }
  checkLinkId(link, 'trace_id', loc, items);
  checkLinkId(link, 'span_id', loc, items);
  if (link.attributes != null && !isJsonObject(link.attributes)) {
    problem(items, [...loc, 'attributes'], 'dict_type', 'Input should be a valid dictionary');
  }
}

/** An optional object field: absent (undefined), the object, or a `dict_type` problem (null). */
function optionalObject(trace: JsonObject, field: string, items: ValidationItem[]): JsonObject | undefined {
  const v = trace[field];
  if (v === undefined || v === null) return undefined;
  if (isJsonObject(v)) return v;
  problem(items, ['body', 'trace', field], 'dict_type', 'Input should be a valid dictionary');
  return undefined;
}

/** The fields of a simple trace, each checked when present; absent ones undefined. */
export type SimpleTraceParts = Partial<SimpleTrace>;

function traceObject(body: unknown): JsonObject | ValidationItem[] {
  if (!isJsonObject(body)) {
    return [{ loc: ['body'], msg: 'Input should be a valid dictionary or object', type: 'model_attributes_type' }];
  }
  const t = body.trace;
  if (t === undefined || t === null) return [{ loc: ['body', 'trace'], msg: 'Field required', type: 'missing' }];
  if (!isJsonObject(t)) return [{ loc: ['body', 'trace'], msg: 'Input should be a valid dictionary', type: 'dict_type' }];
  return t;
}

/**
 * Checks every present field of `t` as on create (§8.1, same loc and type), problems appended to `items`.
 * The simple-trace query (read-api.md §8.5) and the edit (§8.3) share it.
 */
export function checkSimpleParts(t: JsonObject, items: ValidationItem[], requireData = false): SimpleTraceParts {
  const parts: SimpleTraceParts = {};
  const origin = enumField(t, 'origin', ORIGINS, items);
  if (origin !== undefined) parts.origin = origin;
  const kind = enumField(t, 'kind', KINDS, items);
  if (kind !== undefined) parts.kind = kind;
  const channel = enumField(t, 'channel', CHANNELS, items);
  if (channel !== undefined) parts.channel = channel;
  if (requireData && (t.data === undefined || t.data === null)) problem(items, ['body', 'trace', 'data'], 'missing', 'Field required');
  const data = optionalObject(t, 'data', items);
  if (data !== undefined) parts.data = data;
  const tags = optionalObject(t, 'tags', items);
  if (tags !== undefined) checkTags((parts.tags = tags), items);
  const meta = optionalObject(t, 'meta', items);
  if (meta !== undefined) parts.meta = meta;
  const references = optionalObject(t, 'references', items);
  if (references !== undefined) checkReferences((parts.references = references), items);
  if (Array.isArray(t.links)) {
    const links = (parts.links = t.links);
    for (let i = 0; i < links.length; i++) checkLink(links[i], ['body', 'trace', 'links', i], items);
  } else if (isJsonObject(t.links)) {
    const links = (parts.links = t.links);
    for (const name of Object.keys(links)) checkLink(links[name], ['body', 'trace', 'links', name], items);
  } else if (t.links !== undefined && t.links !== null) {
    problem(items, ['body', 'trace', 'links'], 'dict_type', 'Input should be an object of links or a list of links');
  }
  return parts;
}

/** The checked simple trace, or the 422 items (§2.3, §8.1), all of them, in field order. */
export function checkSimpleTrace(body: unknown): SimpleTrace | ValidationItem[] {
  const t = traceObject(body);
  if (Array.isArray(t)) return t;
  const items: ValidationItem[] = [];
  const parts = checkSimpleParts(t, items, true);
  if (items.length > 0) return items;
  const trace: SimpleTrace = { origin: parts.origin ?? 'custom', kind: parts.kind ?? 'adhoc', channel: parts.channel ?? 'api', data: parts.data! };
  if (parts.tags !== undefined) trace.tags = parts.tags;
  if (parts.meta !== undefined) trace.meta = parts.meta;
  if (parts.references !== undefined) trace.references = parts.references;
  if (parts.links !== undefined) trace.links = parts.links;
  return trace;
}

/** The checked edit of read-api.md §8.3 (every field optional, unknown keys ignored), or the 422 items. */
export function checkSimpleEdit(body: unknown): SimpleTraceParts | ValidationItem[] {
  const t = traceObject(body);
  if (Array.isArray(t)) return t;
  const items: ValidationItem[] = [];
  const parts = checkSimpleParts(t, items);
  return items.length > 0 ? items : parts;
}

/** §8.2 flags (with read-api.md §8.6's `is_playground`, `is_otlp`): omitted when empty. */
function flagsOf(trace: SimpleTrace): JsonObject | undefined {
  const flags = flagsFor(trace.origin, trace.kind, trace.channel);
  return Object.keys(flags).length > 0 ? flags : undefined;
}

/** `obj` without its null members. Object.fromEntries defines own properties, so a client's
 *  `__proto__` key stays a key instead of replacing the prototype. */
function withoutNulls(obj: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== null));
}

/** References without null entries and, in listed entries, without null fields; undefined when empty. */
export function referencesOf(refs: JsonObject): JsonObject | undefined {
  const entries: Array<[string, unknown]> = [];
  for (const key of Object.keys(refs)) {
    const entry = refs[key];
    if (entry === null) continue;
    entries.push([key, REFERENCE_KEYS.has(key) && isJsonObject(entry) ? withoutNulls(entry) : entry]);
  }
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** §8.2 links: map form keyed by name, list form with the literal key `key`; always present. */
export function linksOf(links: JsonObject | unknown[] | undefined): JsonObject[] {
  const out: JsonObject[] = [];
  if (links === undefined) return out;
  if (Array.isArray(links)) {
    for (const l of links as JsonObject[]) out.push({ trace_id: l.trace_id, span_id: l.span_id, attributes: { key: 'key' } });
  } else {
    for (const name of Object.keys(links)) {
      const l = links[name] as JsonObject;
      out.push({ trace_id: l.trace_id, span_id: l.span_id, attributes: { key: name } });
    }
  }
  return out;
}

/**
 * The one flat tracing-API span (§8.2) for a checked simple trace. `nowNs` is the receive time as a
 * 19-digit nanosecond string, used for both start and end (so no duration metric).
 */
export function simpleTraceSpan(trace: SimpleTrace, traceId: string, spanId: string, nowNs: string): JsonObject {
  const ag: JsonObject = { type: { span: 'task' } };
  const flags = flagsOf(trace);
  if (flags !== undefined) ag.flags = flags;
  if (trace.tags !== undefined) ag.tags = trace.tags;
  if (trace.meta !== undefined) ag.meta = trace.meta;
  ag.data = trace.data;
  const references = trace.references === undefined ? undefined : referencesOf(trace.references);
  if (references !== undefined) ag.references = references;
  const evaluator = references?.evaluator;
  const slug = isJsonObject(evaluator) ? evaluator.slug : undefined;
  return {
    trace_id: traceId,
    span_id: spanId,
    span_name: typeof slug === 'string' && slug !== '' ? slug : 'annotation',
    span_kind: 'SPAN_KIND_UNSPECIFIED',
    status_code: 'STATUS_CODE_UNSET',
    start_time: nowNs,
    end_time: nowNs,
    span_type: 'task',
    attributes: { ag },
    links: linksOf(trace.links),
  };
}

/** The §8.4 echo: ids, the three enums (defaults applied), the rest exactly as received. */
export function simpleTraceEcho(trace: SimpleTrace, traceId: string, spanId: string): JsonObject {
  const echo: JsonObject = {
    trace_id: traceId, span_id: spanId, origin: trace.origin, kind: trace.kind, channel: trace.channel, data: trace.data,
  };
  if (trace.tags !== undefined) echo.tags = trace.tags;
  if (trace.meta !== undefined) echo.meta = trace.meta;
  if (trace.references !== undefined) echo.references = trace.references;
  if (trace.links !== undefined) echo.links = trace.links;
  return echo;
}
