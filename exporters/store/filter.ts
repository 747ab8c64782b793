// Evaluating a checked filter (read-api.md §6.2) on one decoded span record. filter-sql.ts says most
// filters in SQL instead, exactly as this does; what it cannot say is evaluated here, on the rows SQL kept.
import { parseTimestamp } from '../../model/time.ts';
import { flattenObject } from '../../model/attributes/flatten.ts';
import { isJsonObject } from '../../model/json-object.ts';
import { normaliseTraceId } from '../../model/ids.ts';
import { isCondition, type Condition, type Filter } from './query-body.ts';

/** A decoded span record (flat attributes), as stored. */
type SpanRecord = Record<string, unknown>;

export function matchesFilter(filter: Filter, record: SpanRecord): boolean {
  const matches = (c: Filter | Condition) => (isCondition(c) ? matchesCondition(c, record) : matchesFilter(c, record));
  const { conditions } = filter;
  // No condition matches everything, whatever the operator (§6.2: `conditions` defaults to []).
  if (conditions.length === 0) return true;
  switch (filter.operator) {
    case 'and': return conditions.every(matches);
    case 'or': return conditions.some(matches);
    case 'not': return !matches(conditions[0]);
    case 'nand': return !conditions.every(matches);
    case 'nor': return !conditions.some(matches);
  }
}

/** JSON equality of attribute values: same type, numbers (and bigints) by value, lists item by item. */
function sameValue(a: unknown, b: unknown): boolean {
  const numeric = (x: unknown) => typeof x === 'number' || typeof x === 'bigint';
  if (numeric(a) && numeric(b)) {
    if (typeof a === 'number' && typeof b === 'number') return a === b;
    // A bigint is beyond 2^53: equal only to the same integer, never to a rounded double.
    const exact = (x: unknown) => (typeof x === 'bigint' ? x : Number.isInteger(x) ? BigInt(x as number) : undefined);
    const x = exact(a), y = exact(b);
    return x !== undefined && x === y;
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  return a === b;
}

function compareOrder(stored: unknown, value: unknown): number | undefined {
  if ((typeof stored === 'number' || typeof stored === 'bigint') && (typeof value === 'number' || typeof value === 'bigint')) {
    // Two integers compare exactly (a bigint beyond 2^53 is not rounded), as SQLite compares them.
    const integral = (x: number | bigint) => typeof x === 'bigint' || Number.isInteger(x);
    const s = integral(stored) && integral(value) ? BigInt(stored) : Number(stored);
    const v = integral(stored) && integral(value) ? BigInt(value) : Number(value);
    return s < v ? -1 : s > v ? 1 : 0;
  }
  if (typeof stored === 'string' && typeof value === 'string') return codePointCompare(stored, value);
  return undefined;
}

/** Code-point order (UTF-16 order differs above U+FFFF). */
function codePointCompare(a: string, b: string): number {
  if (a === b) return 0;
  const x = [...a], y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
}

function ordered(op: string, stored: unknown, value: unknown): boolean {
  if (op === 'btwn') {
    const [low, high] = value as unknown[];
    const a = compareOrder(stored, low), b = compareOrder(stored, high);
    return a !== undefined && b !== undefined && a >= 0 && b <= 0;
  }
  const c = compareOrder(stored, value);
  if (c === undefined) return false;
  return op === 'gt' ? c > 0 : op === 'gte' ? c >= 0 : op === 'lt' ? c < 0 : c <= 0;
}

function textMatch(op: string, stored: string, value: string, caseSensitive: boolean): boolean {
  const s = caseSensitive ? stored : stored.toLowerCase();
  const v = caseSensitive ? value : value.toLowerCase();
  return op === 'contains' ? s.includes(v) : op === 'startswith' ? s.startsWith(v) : s.endsWith(v);
}

/** A text or id field's stored value against a positive operator (negations are handled by the caller). */
function matchesScalar(c: Condition, stored: unknown): boolean {
  if (stored === undefined) return false;
  switch (c.operator) {
    case 'is': return stored === c.value;
    case 'in': return (c.value as unknown[]).includes(stored);
    case 'contains': case 'startswith': case 'endswith':
      return typeof stored === 'string' && textMatch(c.operator, stored, c.value as string, c.caseSensitive);
    default: return ordered(c.operator, stored, c.value);
  }
}

const NEGATED: Record<string, Condition['operator']> = { is_not: 'is', not_in: 'in' };

function matchesCondition(c: Condition, record: SpanRecord): boolean {
  const positive = NEGATED[c.operator];
  if (positive !== undefined) return !matchesCondition({ ...c, operator: positive }, record);
  switch (c.kind) {
    case 'id': case 'text': case 'enum': {
      const stored = record[c.field] ?? undefined;
      if (c.operator === 'exists') return stored !== undefined;
      if (c.operator === 'not_exists') return stored === undefined;
      return matchesScalar(c, stored);
    }
    case 'time': {
      const stored = parseTimestamp(record[c.field]);
      if (stored === undefined) return false;
      if (c.operator === 'is') return stored === c.value;
      if (c.operator === 'btwn') return stored >= (c.value as bigint[])[0] && stored <= (c.value as bigint[])[1];
      const v = c.value as bigint;
      return c.operator === 'gt' ? stored > v : c.operator === 'gte' ? stored >= v : c.operator === 'lt' ? stored < v : stored <= v;
    }
    case 'attributes':
      return matchesAttribute(c, (record.attributes ?? {}) as SpanRecord);
    case 'links':
      return matchesEntries(c, record.links, linkHasIds);
    case 'references':
      return matchesEntries(c, record.references, (entry, given) =>
        (given.id === undefined || normaliseTraceId(entry.id) === given.id)
        && (given.slug === undefined || entry.slug === given.slug) && (given.version === undefined || entry.version === given.version));
  }
}

/** A stored link against the ids a query gives; an absent one matches any. */
export function linkHasIds(stored: { trace_id?: unknown; span_id?: unknown }, given: { trace_id?: string; span_id?: string }): boolean {
  return (given.trace_id === undefined || stored.trace_id === given.trace_id) && (given.span_id === undefined || stored.span_id === given.span_id);
}

function matchesEntries(c: Condition, stored: unknown, equal: (entry: SpanRecord, given: Record<string, string>) => boolean): boolean {
  const list = Array.isArray(stored) ? (stored as SpanRecord[]) : [];
  if (c.operator === 'exists') return list.length > 0;
  if (c.operator === 'not_exists') return list.length === 0;
  const given = c.value as Array<Record<string, string>>;
  return list.some((entry) => given.some((g) => equal(entry, g)));
}

function matchesAttribute(c: Condition, attributes: SpanRecord): boolean {
  const key = c.key!;
  const has = Object.hasOwn(attributes, key);
  const stored = has ? attributes[key] : undefined;
  switch (c.operator) {
    case 'exists': case 'not_exists': {
      const prefix = key + '.';
      const found = has || Object.keys(attributes).some((k) => k.startsWith(prefix));
      return c.operator === 'exists' ? found : !found;
    }
    case 'is': return attributeIs(attributes, key, c.value);
    case 'in': return (c.value as unknown[]).some((v) => attributeIs(attributes, key, v));
    case 'contains':
      if (Array.isArray(stored)) return stored.some((item) => sameValue(item, c.value));
      return typeof stored === 'string' && typeof c.value === 'string' && textMatch('contains', stored, c.value, c.caseSensitive);
    case 'startswith': case 'endswith':
      return typeof stored === 'string' && typeof c.value === 'string' && textMatch(c.operator, stored, c.value, c.caseSensitive);
    default:
      return has && ordered(c.operator, stored, c.value);
  }
}

/** `is`: a scalar or list equal at exactly `key`; an object: every entry of its flatten stored under `key`. */
export function attributeIs(attributes: SpanRecord, key: string, value: unknown): boolean {
  if (isJsonObject(value)) {
    for (const [sub, v] of flattenObject(value)) {
      const at = key + '.' + sub;
      if (!Object.hasOwn(attributes, at) || !sameValue(attributes[at], v)) return false;
    }
    return true;
  }
  return Object.hasOwn(attributes, key) && sameValue(attributes[key], value);
}
