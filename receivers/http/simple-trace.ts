// `POST /simple/traces/` (ingest-api.md §8): one self-contained event becomes one root span. The body is
// checked here (422 with exact loc/type), then turned into ONE flat tracing-API span object that goes
// through the same span checks and namespace as every other request.
import { isJsonObject } from '../../codec/json/parse.ts';
import { normaliseSpanId, normaliseTraceId, normaliseUuid } from '../../model/ids.ts';
import { REFERENCE_KEYS } from '../../model/span.ts';
import type { ValidationItem } from './replies.ts';


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

function enumField<T extends string>(
  trace: JsonObject, field: string, allowed: readonly T[], fallback: T, items: ValidationItem[],
): T {
  const v = trace[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  problem(items, ['body', 'trace', field], 'enum', `Input should be ${allowed.map((a) => `'${a}'`).join(', ')}`);
  return fallback;
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

/** The checked simple trace, or the 422 items (§2.3, §8.1), all of them, in field order. */
export function checkSimpleTrace(body: unknown): SimpleTrace | ValidationItem[] {
  if (!isJsonObject(body)) {
    return [{ loc: ['body'], msg: 'Input should be a valid dictionary or object', type: 'model_attributes_type' }];
  }
  const t = body.trace;
  if (t === undefined || t === null) return [{ loc: ['body', 'trace'], msg: 'Field required', type: 'missing' }];
  if (!isJsonObject(t)) return [{ loc: ['body', 'trace'], msg: 'Input should be a valid dictionary', type: 'dict_type' }];

  const items: ValidationItem[] = [];
  const origin = enumField(t, 'origin', ORIGINS, 'custom', items);
  const kind = enumField(t, 'kind', KINDS, 'adhoc', items);
  const channel = enumField(t, 'channel', CHANNELS, 'api', items);
  let data: JsonObject | undefined;
  if (t.data === undefined || t.data === null) problem(items, ['body', 'trace', 'data'], 'missing', 'Field required');
  else data = optionalObject(t, 'data', items);
  const tags = optionalObject(t, 'tags', items);
  if (tags !== undefined) checkTags(tags, items);
  const meta = optionalObject(t, 'meta', items);
  const references = optionalObject(t, 'references', items);
  if (references !== undefined) checkReferences(references, items);
  let links: JsonObject | unknown[] | undefined;
  if (Array.isArray(t.links)) {
    links = t.links;
    for (let i = 0; i < links.length; i++) checkLink(links[i], ['body', 'trace', 'links', i], items);
  } else if (isJsonObject(t.links)) {
    links = t.links;
    for (const name of Object.keys(links)) checkLink(links[name], ['body', 'trace', 'links', name], items);
  } else if (t.links !== undefined && t.links !== null) {
    problem(items, ['body', 'trace', 'links'], 'dict_type', 'Input should be an object of links or a list of links');
  }
  if (items.length > 0) return items;

  const trace: SimpleTrace = { origin, kind, channel, data: data as JsonObject };
  if (tags !== undefined) trace.tags = tags;
  if (meta !== undefined) trace.meta = meta;
  if (references !== undefined) trace.references = references;
  if (links !== undefined) trace.links = links;
  return trace;
}

/** §8.2 flags: omitted when empty. */
function flagsOf(trace: SimpleTrace): JsonObject | undefined {
  const flags: JsonObject = {};
  if (trace.origin === 'human') flags.is_feedback = true;
  else if (trace.origin === 'custom') flags.is_custom = true;
  if (trace.kind === 'eval') flags.is_evaluation = true;
  if (trace.channel === 'sdk') flags.is_sdk = true;
  else if (trace.channel === 'web') flags.is_web = true;
  return Object.keys(flags).length > 0 ? flags : undefined;
}

/** `obj` without its null members. Object.fromEntries defines own properties, so a client's
 *  `__proto__` key stays a key instead of replacing the prototype. */
function withoutNulls(obj: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== null));
}

/** References without null entries and, in listed entries, without null fields; undefined when empty. */
function referencesOf(refs: JsonObject): JsonObject | undefined {
  const entries: Array<[string, unknown]> = [];
  for (const key of Object.keys(refs)) {
    const entry = refs[key];
    if (entry === null) continue;
    entries.push([key, REFERENCE_KEYS.has(key) && isJsonObject(entry) ? withoutNulls(entry) : entry]);
  }
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** §8.2 links: map form keyed by name, list form with the literal key `key`; always present. */
function linksOf(links: JsonObject | unknown[] | undefined): JsonObject[] {
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
