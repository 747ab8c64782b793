// The flat query body of `POST /tracing/spans/query` (read-api.md §6.1, §6.2) -> a checked FlatQuery, or
// the 422 entries of §2.3. Everything a query needs is decided here, before anything runs: ids in output
// form, times in nanoseconds, enum values checked, operator aliases resolved.
import { isJsonObject } from '../../model/json-object.ts';
import { parseTimestamp } from '../../model/time.ts';
import { normaliseSpanId, normaliseTraceId } from '../../model/ids.ts';
import { SPAN_KIND_NAMES, SPAN_TYPES, STATUS_CODE_NAMES, TRACE_TYPES } from '../../model/span.ts';

/** One 422 entry (read-api.md §2.3). */
export interface Problem {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

export type Operator =
  | 'is' | 'is_not' | 'in' | 'not_in' | 'contains' | 'startswith' | 'endswith'
  | 'gt' | 'gte' | 'lt' | 'lte' | 'btwn' | 'exists' | 'not_exists';

export type FieldKind = 'id' | 'text' | 'enum' | 'time' | 'attributes' | 'links' | 'references';

export interface Condition {
  field: string;
  kind: FieldKind;
  /** Attributes only: the flat dotted key. */
  key?: string;
  operator: Operator;
  /** Checked and normalised: id hex, time ns (bigint), enum names, texts; a list for in/not_in/btwn. */
  value?: unknown;
  caseSensitive: boolean;
}

export interface Filter {
  operator: 'and' | 'or' | 'not' | 'nand' | 'nor';
  conditions: Array<Filter | Condition>;
}

/** Whether an entry of `conditions` is a condition (else a nested filter). */
export function isCondition(c: Filter | Condition): c is Condition {
  return 'field' in c;
}

export interface FlatQuery {
  focus: 'trace' | 'span';
  format: 'agenta' | 'opentelemetry';
  oldestNs?: bigint;
  newestNs?: bigint;
  limit: number;
  rate: number;
  filter: Filter;
}

export interface QueryLimits {
  defaultLimit: number;
  maxLimit: number;
}

const FLAT_QUERY_KEYS = ['focus', 'format', 'oldest', 'newest', 'limit', 'interval', 'rate', 'filter'];
const FILTER_KEYS = ['operator', 'conditions'];
const CONDITION_KEYS = ['field', 'key', 'value', 'operator', 'options'];
const OPTION_KEYS = ['case_sensitive', 'exact_match'];
const LOGICAL = ['and', 'or', 'not', 'nand', 'nor'] as const;

const TEXT_OPERATORS: Operator[] = ['is', 'is_not', 'in', 'not_in', 'contains', 'startswith', 'endswith', 'gt', 'gte', 'lt', 'lte', 'btwn', 'exists', 'not_exists'];
const ALLOWED: Record<FieldKind, readonly Operator[]> = {
  id: ['is', 'is_not', 'in', 'not_in'],
  text: TEXT_OPERATORS,
  enum: ['is', 'is_not', 'in', 'not_in'],
  time: ['is', 'is_not', 'gt', 'gte', 'lt', 'lte', 'btwn'],
  attributes: TEXT_OPERATORS,
  links: ['in', 'exists', 'not_exists'],
  references: ['in', 'exists', 'not_exists'],
};
const FIELDS: Record<string, FieldKind> = {
  trace_id: 'id', span_id: 'id', parent_id: 'id',
  span_name: 'text', status_message: 'text', session_id: 'text', user_id: 'text',
  span_type: 'enum', trace_type: 'enum', span_kind: 'enum', status_code: 'enum',
  start_time: 'time', end_time: 'time', attributes: 'attributes', links: 'links', references: 'references',
};
const ENUM_VALUES: Record<string, readonly string[]> = {
  span_type: SPAN_TYPES, trace_type: TRACE_TYPES, span_kind: SPAN_KIND_NAMES, status_code: STATUS_CODE_NAMES,
};
/** Operators known to the tracing API that tracehop does not run (§11 row 22): not_supported, not enum. */
const UNSUPPORTED_OPERATORS = new Set(['matches', 'like', 'has', 'has_not']);
const ALIASES: Record<string, Operator> = { eq: 'is', neq: 'is_not' };
const OPTION_OPERATORS = new Set<Operator>(['contains', 'startswith', 'endswith']);

export type Loc = Array<string | number>;

/** Absent means missing or JSON null (ingest-api.md terms). */
export function absent(v: unknown): boolean {
  return v === undefined || v === null;
}

export function unknownKeys(obj: Record<string, unknown>, allowed: readonly string[], loc: Loc, out: Problem[]): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) {
      out.push({ loc: [...loc, key], msg: `Unknown key '${key}'; allowed: ${allowed.join(', ')}`, type: 'extra_forbidden' });
    }
  }
}

function timeOf(value: unknown, loc: Loc, out: Problem[]): bigint | undefined {
  const ns = parseTimestamp(value);
  if (ns === undefined) out.push({ loc, msg: `Not a time: ${JSON.stringify(String(value))}`, type: 'invalid_time' });
  return ns;
}

/** The query of a checked body, or its problems. `body` is the parsed JSON (an empty body reads as {}). */
export function parseFlatQuery(body: unknown, limits: QueryLimits): FlatQuery | Problem[] {
  if (!isJsonObject(body)) return [{ loc: ['body'], msg: 'The body must be a JSON object', type: 'model_attributes_type' }];
  const out: Problem[] = [];
  unknownKeys(body, FLAT_QUERY_KEYS, ['body'], out);
  const query: FlatQuery = { focus: 'trace', format: 'agenta', limit: limits.defaultLimit, rate: 1, filter: { operator: 'and', conditions: [] } };
  const { focus, format, filter } = body;
  if (!absent(focus)) {
    if (focus === 'trace' || focus === 'span') query.focus = focus;
    else out.push({ loc: ['body', 'focus'], msg: "focus must be 'trace' or 'span'", type: 'enum' });
  }
  if (!absent(format)) {
    if (format === 'agenta' || format === 'opentelemetry') query.format = format;
    else out.push({ loc: ['body', 'format'], msg: "format must be 'agenta' or 'opentelemetry'", type: 'enum' });
  }
  windowInto(body, ['body'], limits, query, out);
  if (!absent(filter)) {
    let value = filter;
    if (typeof filter === 'string') {
      try {
        value = JSON.parse(filter);
      } catch (error) {
        out.push({ loc: ['body', 'filter'], msg: `filter is not JSON: ${(error as Error).message}`, type: 'json_invalid' });
        value = undefined;
      }
    }
    if (value !== undefined) {
      const parsed = parseFilter(value, ['body', 'filter'], out);
      if (parsed !== undefined) query.filter = parsed;
    }
  }
  return out.length > 0 ? out : query;
}

/** The window part both query bodies share (§6.1, §7): `oldest`, `newest`, `limit`, `interval`, `rate` of `obj`. */
export function windowInto(
  obj: Record<string, unknown>, loc: Loc, limits: QueryLimits, into: { oldestNs?: bigint; newestNs?: bigint; limit: number; rate: number }, out: Problem[],
): void {
  const { oldest, newest, limit, interval, rate } = obj;
  if (!absent(oldest)) into.oldestNs = timeOf(oldest, [...loc, 'oldest'], out);
  if (!absent(newest)) into.newestNs = timeOf(newest, [...loc, 'newest'], out);
  if (!absent(limit)) {
    if (typeof limit !== 'number' || !Number.isInteger(limit)) out.push({ loc: [...loc, 'limit'], msg: 'limit must be an integer', type: 'int_type' });
    else if (limit < 1 || limit > limits.maxLimit) out.push({ loc: [...loc, 'limit'], msg: `limit must be between 1 and ${limits.maxLimit}`, type: 'range' });
    else into.limit = limit;
  }
  if (!absent(interval)) {
    if (typeof interval !== 'number' || !Number.isInteger(interval)) out.push({ loc: [...loc, 'interval'], msg: 'interval must be an integer', type: 'int_type' });
    else if (interval <= 0) out.push({ loc: [...loc, 'interval'], msg: 'interval must be greater than 0', type: 'range' });
  }
  if (!absent(rate)) {
    if (typeof rate !== 'number') out.push({ loc: [...loc, 'rate'], msg: 'rate must be a number', type: 'number_type' });
    else if (rate < 0 || rate > 1) out.push({ loc: [...loc, 'rate'], msg: 'rate must be between 0 and 1', type: 'range' });
    else into.rate = rate;
  }
}

/** A Filter (§6.2) at `loc`; problems go to `out`. Exported for the structured queries (§7). */
export function parseFilter(value: unknown, loc: Loc, out: Problem[]): Filter | undefined {
  if (!isJsonObject(value)) {
    out.push({ loc, msg: 'A filter must be an object', type: 'dict_type' });
    return undefined;
  }
  unknownKeys(value, FILTER_KEYS, loc, out);
  const filter: Filter = { operator: 'and', conditions: [] };
  if (!absent(value.operator)) {
    if ((LOGICAL as readonly unknown[]).includes(value.operator)) filter.operator = value.operator as Filter['operator'];
    else out.push({ loc: [...loc, 'operator'], msg: `operator must be one of ${LOGICAL.join(', ')}`, type: 'enum' });
  }
  if (!absent(value.conditions)) {
    if (!Array.isArray(value.conditions)) {
      out.push({ loc: [...loc, 'conditions'], msg: 'conditions must be a list', type: 'list_type' });
    } else {
      value.conditions.forEach((item: unknown, i: number) => {
        const at = [...loc, 'conditions', i];
        const nested = isJsonObject(item) && !('field' in item) && ('conditions' in item || (LOGICAL as readonly unknown[]).includes(item.operator));
        const parsed = nested ? parseFilter(item, at, out) : parseCondition(item, at, out);
        if (parsed !== undefined) filter.conditions.push(parsed);
      });
    }
  }
  if ((filter.operator === 'not') && filter.conditions.length !== 1 && Array.isArray(value.conditions)) {
    out.push({ loc: [...loc, 'conditions'], msg: "'not' takes exactly one condition", type: 'value_error' });
  }
  return filter;
}

function parseCondition(item: unknown, loc: Loc, out: Problem[]): Condition | undefined {
  if (!isJsonObject(item)) {
    out.push({ loc, msg: 'A condition must be an object', type: 'dict_type' });
    return undefined;
  }
  const before = out.length;
  unknownKeys(item, CONDITION_KEYS, loc, out);
  const { field, key, value, operator, options } = item;
  if (absent(field)) {
    out.push({ loc: [...loc, 'field'], msg: 'field is required', type: 'missing' });
    return undefined;
  }
  if (typeof field !== 'string') {
    out.push({ loc: [...loc, 'field'], msg: 'field must be a string', type: 'string_type' });
    return undefined;
  }
  const kind = FIELDS[field];
  if (kind === undefined) {
    out.push({ loc: [...loc, 'field'], msg: `field '${field}' is not supported; supported: ${Object.keys(FIELDS).join(', ')}`, type: 'not_supported' });
    return undefined;
  }
  let op: Operator = 'is';
  if (!absent(operator)) {
    if (typeof operator !== 'string') {
      out.push({ loc: [...loc, 'operator'], msg: 'operator must be a string', type: 'string_type' });
      return undefined;
    }
    const resolved = ALIASES[operator] ?? operator;
    if (UNSUPPORTED_OPERATORS.has(operator)) {
      out.push({ loc: [...loc, 'operator'], msg: `operator '${operator}' is not supported`, type: 'not_supported' });
      return undefined;
    }
    if (!(TEXT_OPERATORS as string[]).includes(resolved)) {
      out.push({ loc: [...loc, 'operator'], msg: `operator '${operator}' is unknown; known: ${TEXT_OPERATORS.join(', ')}, eq, neq`, type: 'enum' });
      return undefined;
    }
    op = resolved as Operator;
  }
  if (!ALLOWED[kind].includes(op) && !(field === 'parent_id' && (op === 'exists' || op === 'not_exists'))) {
    out.push({ loc: [...loc, 'operator'], msg: `operator '${op}' is not supported for field '${field}'`, type: 'not_supported' });
    return undefined;
  }
  let conditionKey: string | undefined;
  if (!absent(key)) {
    if (kind !== 'attributes') {
      out.push({ loc: [...loc, 'key'], msg: `key is only for field 'attributes', not '${field}'`, type: 'not_supported' });
      return undefined;
    }
    if (typeof key !== 'string' || key.length === 0) {
      out.push({ loc: [...loc, 'key'], msg: 'key must be a non-empty string', type: 'string_type' });
      return undefined;
    }
    conditionKey = key;
  } else if (kind === 'attributes') {
    out.push({ loc: [...loc, 'key'], msg: "field 'attributes' needs a key", type: 'missing' });
    return undefined;
  }
  let caseSensitive = false;
  if (!absent(options)) {
    if (!isJsonObject(options)) {
      out.push({ loc: [...loc, 'options'], msg: 'options must be an object', type: 'dict_type' });
      return undefined;
    }
    unknownKeys(options, OPTION_KEYS, [...loc, 'options'], out);
    if (!OPTION_OPERATORS.has(op)) {
      out.push({ loc: [...loc, 'options'], msg: 'options are only for contains, startswith and endswith', type: 'not_supported' });
      return undefined;
    }
    for (const name of OPTION_KEYS) {
      const v = options[name];
      if (!absent(v) && typeof v !== 'boolean') out.push({ loc: [...loc, 'options', name], msg: `${name} must be a boolean`, type: 'bool_type' });
    }
    caseSensitive = options.case_sensitive === true;
    if (options.exact_match === true) op = 'is';
  }
  // parent_id `is` / `is_not` without a value: root / not root.
  if (field === 'parent_id' && absent(value) && (op === 'is' || op === 'is_not')) op = op === 'is' ? 'not_exists' : 'exists';
  const condition: Condition = { field, kind, key: conditionKey, operator: op, caseSensitive };
  const valueLoc = [...loc, 'value'];
  if (op === 'exists' || op === 'not_exists') {
    if (!absent(value)) out.push({ loc: valueLoc, msg: `operator '${op}' takes no value`, type: 'value_error' });
  } else if (absent(value)) {
    out.push({ loc: valueLoc, msg: `operator '${op}' needs a value`, type: 'missing' });
  } else if (op === 'in' || op === 'not_in') {
    if (!Array.isArray(value) || value.length === 0) out.push({ loc: valueLoc, msg: `operator '${op}' takes a non-empty list`, type: 'value_error' });
    else condition.value = value.map((v, i) => valueOf(field, kind, v, [...valueLoc, i], out));
  } else if (op === 'btwn') {
    if (!Array.isArray(value) || value.length !== 2) out.push({ loc: valueLoc, msg: "operator 'btwn' takes [low, high]", type: 'value_error' });
    else condition.value = value.map((v, i) => valueOf(field, kind, v, [...valueLoc, i], out));
  } else {
    condition.value = valueOf(field, kind, value, valueLoc, out);
  }
  return out.length > before ? undefined : condition;
}

/** One value of a condition, checked and normalised for its field. */
function valueOf(field: string, kind: FieldKind, v: unknown, loc: Loc, out: Problem[]): unknown {
  switch (kind) {
    case 'id': {
      const id = field === 'trace_id' ? normaliseTraceId(v) : normaliseSpanId(v);
      if (id === undefined) out.push({ loc, msg: `Not a ${field === 'trace_id' ? 'trace' : 'span'} id: ${JSON.stringify(v)}`, type: 'invalid_id' });
      return id;
    }
    case 'text':
      if (typeof v !== 'string') out.push({ loc, msg: `${field} values are strings`, type: 'string_type' });
      return v;
    case 'enum':
      if (!ENUM_VALUES[field].includes(v as string)) {
        out.push({ loc, msg: `${field} must be one of ${ENUM_VALUES[field].join(', ')}`, type: 'enum' });
      }
      return v;
    case 'time':
      return timeOf(v, loc, out);
    case 'attributes':
      return v;
    case 'links':
      return partial(v, { trace_id: normaliseTraceId, span_id: normaliseSpanId }, loc, out);
    case 'references':
      return partial(v, { id: uuidHex, slug: text, version: text }, loc, out);
  }
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
/** A reference id in any ingest §4.3 form, compared as 32 hex digits. */
const uuidHex = (v: unknown): string | undefined => normaliseTraceId(v);

function partial(v: unknown, fields: Record<string, (x: unknown) => string | undefined>, loc: Loc, out: Problem[]): Record<string, string> | undefined {
  if (!isJsonObject(v)) {
    out.push({ loc, msg: 'entries are objects', type: 'dict_type' });
    return undefined;
  }
  unknownKeys(v, Object.keys(fields), loc, out);
  const entry: Record<string, string> = {};
  for (const [name, normalise] of Object.entries(fields)) {
    if (absent(v[name])) continue;
    const n = normalise(v[name]);
    if (n === undefined) out.push({ loc: [...loc, name], msg: `Not a valid ${name}`, type: name === 'slug' || name === 'version' ? 'string_type' : 'invalid_id' });
    else entry[name] = n;
  }
  return entry;
}
