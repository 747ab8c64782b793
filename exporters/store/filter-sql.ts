// A checked filter (read-api.md §6.2) as SQL over a `spans` row: the columns, and SQLite's JSON functions
// on the stored record (`$.attributes."<flat key>"`, `json_each` over a list). A condition is translated
// only when SQL gives exactly the answer matchesFilter (filter.ts) gives, so that a row SQL keeps needs no
// decoding; what SQL cannot say exactly stays a residual filter evaluated on the decoded record:
// - attribute keys containing `"` (SQLite's JSON paths have no escape for it) or NUL;
// - `is` / `in` / `contains` with a list value, or an object value whose flatten holds a list;
// - numbers beyond ±2^53 in a value (bigint: SQLite's REAL and INTEGER compare differently from exact JS);
// - case-insensitive `contains` / `startswith` / `endswith` with a non-ASCII value (SQLite's lower() folds
//   ASCII only);
// - a time at or beyond 2^63 ns (the column is clamped there);
// - `references` `in` with an `id` (stored ids are compared after normalisation, which SQL cannot do).
// Every SQL expression here is 0 or 1, never NULL, so NOT and the negated operators are exact too.
import { flattenObject } from '../../model/attributes/flatten.ts';
import { isJsonObject } from '../../model/json-object.ts';
import { SPAN_KIND_BY_NAME, STATUS_CODE_BY_NAME } from '../../model/span.ts';
import { isCondition, type Condition, type Filter } from './query-body.ts';
import { MAX_COLUMN_NS } from './span-writer.ts';

type SqlParam = string | number | bigint | null;

/** An expression that is exactly the condition, with its parameters in order. */
interface Sql {
  sql: string;
  params: SqlParam[];
}

/** The split of a filter: `where` holds exactly (AND of them); `residual`, when set, must hold too (in JS). */
export interface FilterPlan {
  where: string[];
  params: SqlParam[];
  residual?: Filter;
  /**
   * The SQL part pins the rows to listed trace ids (a top-level `trace_id` `is` / `in`): only those traces'
   * spans can match, so the primary key finds them without reading the window (scan.ts).
   */
  byTraceId: boolean;
}

const TRUE: Sql = { sql: '1', params: [] };
const FALSE: Sql = { sql: '0', params: [] };

/** The top-level `and` goes to SQL part by part; any other filter goes whole or not at all. */
export function planFilter(filter: Filter): FilterPlan {
  const plan: FilterPlan = { where: [], params: [], byTraceId: false };
  if (filter.conditions.length === 0) return plan;
  const parts = filter.operator === 'and' ? filter.conditions : [filter];
  plan.byTraceId = parts.some((c) => isCondition(c) && c.field === 'trace_id' && (c.operator === 'is' || c.operator === 'in'));
  const rest: Array<Filter | Condition> = [];
  for (const part of parts) {
    const sql = isCondition(part) ? conditionSql(part) : filterSql(part);
    if (sql === undefined) {
      rest.push(part);
      continue;
    }
    plan.where.push(sql.sql);
    plan.params.push(...sql.params);
  }
  if (rest.length > 0) plan.residual = filter.operator === 'and' ? { operator: 'and', conditions: rest } : filter;
  return plan;
}

/** A filter node as one expression, or undefined when some part of it cannot be said exactly. */
function filterSql(filter: Filter): Sql | undefined {
  // No condition matches everything, whatever the operator (as matchesFilter).
  if (filter.conditions.length === 0) return TRUE;
  const parts: Sql[] = [];
  for (const c of filter.conditions) {
    const sql = isCondition(c) ? conditionSql(c) : filterSql(c);
    if (sql === undefined) return undefined;
    parts.push(sql);
  }
  const params = parts.flatMap((p) => p.params);
  const and = parts.map((p) => `(${p.sql})`).join(' AND ');
  const or = parts.map((p) => `(${p.sql})`).join(' OR ');
  switch (filter.operator) {
    case 'and': return { sql: and, params };
    case 'or': return { sql: or, params };
    case 'not': return { sql: `NOT (${parts[0].sql})`, params };
    case 'nand': return { sql: `NOT (${and})`, params };
    case 'nor': return { sql: `NOT (${or})`, params };
  }
}

const NEGATED: Partial<Record<Condition['operator'], Condition['operator']>> = { is_not: 'is', not_in: 'in' };

/** A value SQL may compare: strings, booleans, null, and numbers within ±2^53 (exact as a double). */
function plainScalar(v: unknown): v is string | number | boolean | null {
  return v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Math.abs(v) < 2 ** 53);
}

/** NULL (a missing column, JSON value or key) reads as 0, so that NOT over the result stays exact. */
function definite(sql: Sql): Sql {
  return { sql: `IFNULL((${sql.sql}), 0)`, params: sql.params };
}


function anyOf(parts: Sql[]): Sql {
  return parts.length === 0 ? FALSE : { sql: parts.map((p) => `(${p.sql})`).join(' OR '), params: parts.flatMap((p) => p.params) };
}

function allOf(parts: Sql[]): Sql {
  return parts.length === 0 ? TRUE : { sql: parts.map((p) => `(${p.sql})`).join(' AND '), params: parts.flatMap((p) => p.params) };
}

function conditionSql(c: Condition): Sql | undefined {
  const positive = NEGATED[c.operator];
  if (positive !== undefined) {
    const sql = conditionSql({ ...c, operator: positive });
    return sql === undefined ? undefined : { sql: `NOT (${sql.sql})`, params: sql.params };
  }
  switch (c.kind) {
    case 'id': return columnSql(c, c.field);
    case 'text':
      // status_message has no column of its own.
      return columnSql(c, c.field === 'status_message' ? `json_extract(record, '$.status_message')` : c.field);
    case 'enum': return enumSql(c);
    case 'time': return timeSql(c);
    case 'attributes': return attributeSql(c);
    case 'links': return entriesSql(c, '$.links', ['trace_id', 'span_id']);
    case 'references': return entriesSql(c, '$.references', ['slug', 'version']);
  }
}

/** Columns that are never NULL: their comparisons need no IFNULL, which would hide them from the indexes. */
const NOT_NULL = new Set(['trace_id', 'span_id', 'span_name']);

/** Id and text fields: a TEXT column (or expression) against strings. */
function columnSql(c: Condition, column: string): Sql | undefined {
  const wrap = NOT_NULL.has(column) ? (sql: Sql) => sql : definite;
  switch (c.operator) {
    case 'exists': return { sql: `${column} IS NOT NULL`, params: [] };
    case 'not_exists': return { sql: `${column} IS NULL`, params: [] };
    case 'is': return wrap({ sql: `${column} = ?`, params: [c.value as string] });
    case 'in': {
      const values = c.value as string[];
      return wrap({ sql: `${column} IN (${values.map(() => '?').join(', ')})`, params: values });
    }
    case 'contains': case 'startswith': case 'endswith': {
      const text = textSql(column, c.operator, c.value as string, c.caseSensitive);
      return text === undefined ? undefined : wrap(text);
    }
    default: return wrap(orderedSql(column, c.operator, c.value, 'text') ?? FALSE);
  }
}

/** Enum fields: span and trace types are TEXT columns; kinds and status codes are stored as their numbers. */
function enumSql(c: Condition): Sql {
  const byName = c.field === 'span_kind' ? SPAN_KIND_BY_NAME : c.field === 'status_code' ? STATUS_CODE_BY_NAME : undefined;
  const values = (c.operator === 'in' ? c.value : [c.value]) as string[];
  const params = byName === undefined ? values : values.map((v) => byName.get(v)!);
  return definite({ sql: `${c.field} IN (${params.map(() => '?').join(', ')})`, params });
}

const COMPARE: Record<string, string> = { is: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' };

function timeSql(c: Condition): Sql | undefined {
  const column = c.field === 'start_time' ? 'start_ns' : 'end_ns';
  const values = (Array.isArray(c.value) ? c.value : [c.value]) as bigint[];
  // Stored times from 2^63 ns on are clamped to 2^63-1 in the column: only values below it compare exactly.
  if (values.some((v) => v >= MAX_COLUMN_NS)) return undefined;
  if (c.operator === 'btwn') return { sql: `${column} BETWEEN ? AND ?`, params: values };
  return { sql: `${column} ${COMPARE[c.operator]} ?`, params: [values[0]] };
}

/**
 * gt ... btwn: numbers compare with stored numbers only, strings with stored strings only (filter.ts
 * `ordered`); any other value matches nothing. `stored`: a TEXT column (strings only), or a JSON value whose
 * `json_type` is `typeOf`.
 */
function orderedSql(operand: string, op: string, value: unknown, stored: 'text' | 'json', typeOf?: string): Sql | undefined {
  const values = op === 'btwn' ? (value as unknown[]) : [value];
  const kinds = new Set(values.map((v) => (typeof v === 'string' ? 'string' : typeof v === 'number' ? 'number' : typeof v === 'bigint' ? 'bigint' : 'other')));
  if (kinds.has('bigint')) return undefined;
  if (kinds.size !== 1 || kinds.has('other')) return FALSE;
  if (stored === 'text' && kinds.has('number')) return FALSE;
  if (kinds.has('number') && values.some((v) => !plainScalar(v))) return undefined;
  const typeCheck = stored === 'json' ? (kinds.has('number') ? `${typeOf} IN ('integer', 'real')` : `${typeOf} = 'text'`) : undefined;
  const compare = op === 'btwn' ? `${operand} BETWEEN ? AND ?` : `${operand} ${COMPARE[op]} ?`;
  return { sql: typeCheck === undefined ? compare : `${typeCheck} AND ${compare}`, params: values as SqlParam[] };
}

/**
 * The one non-ASCII letters whose JavaScript lower case holds ASCII (the Kelvin sign and the dotted capital
 * I), folded the way toLowerCase folds them; SQLite's lower() then does the ASCII ones. For an ASCII value
 * this finds exactly what `stored.toLowerCase().includes(value.toLowerCase())` finds: the ASCII runs of
 * both lower cases are the same. A test walks every code point to keep this true.
 */
export function foldSql(operand: string): string {
  return `lower(replace(replace(${operand}, char(8490), 'k'), char(304), 'i' || char(775)))`;
}

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;

/**
 * contains / startswith / endswith on a TEXT operand. endswith compares the UTF-8 bytes in hex: SQLite's
 * length() and substr() stop at a NUL character, hex() does not (and a UTF-8 suffix is a character suffix).
 */
function textSql(operand: string, op: string, value: string, caseSensitive: boolean): Sql | undefined {
  if (!caseSensitive && !ASCII.test(value)) return undefined;
  const s = caseSensitive ? operand : foldSql(operand);
  const v = caseSensitive ? value : value.toLowerCase();
  switch (op) {
    case 'contains': return { sql: `instr(${s}, ?) > 0`, params: [v] };
    case 'startswith': return { sql: `instr(${s}, ?) = 1`, params: [v] };
    default: return { sql: `hex(${s}) GLOB ?`, params: ['*' + Buffer.from(v, 'utf8').toString('hex').toUpperCase()] };
  }
}

/** A SQL string literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * `'$.attributes."<key>"'` as a SQL literal; undefined when the key holds `"` (a JSON path cannot quote it)
 * or NUL (a SQL literal cannot hold it).
 */
function attributePath(key: string): string | undefined {
  return key.includes('"') || key.includes('\0') ? undefined : literal(`$.attributes."${key}"`);
}

/** JSON equality with a plain scalar at `path` (a literal) of the record: the same JSON type, numbers by value. */
function sameValueSql(path: string, value: unknown): Sql | undefined {
  if (!plainScalar(value)) return undefined;
  const type = `json_type(record, ${path})`;
  if (value === null) return { sql: `${type} = 'null'`, params: [] };
  if (typeof value === 'boolean') return { sql: `${type} = '${value}'`, params: [] };
  const typeCheck = typeof value === 'number' ? `${type} IN ('integer', 'real')` : `${type} = 'text'`;
  return { sql: `${typeCheck} AND json_extract(record, ${path}) = ?`, params: [value] };
}

/** The same for one row of json_each (its `type` and `value` columns). */
function eachValueSql(value: unknown): Sql | undefined {
  if (!plainScalar(value)) return undefined;
  if (value === null) return { sql: `type = 'null'`, params: [] };
  if (typeof value === 'boolean') return { sql: `type = '${value}'`, params: [] };
  const typeCheck = typeof value === 'number' ? `type IN ('integer', 'real')` : `type = 'text'`;
  return { sql: `${typeCheck} AND value = ?`, params: [value] };
}

/** `is` at an attribute key: a scalar equal at exactly the key; an object: every entry of its flatten under it. */
function attributeIsSql(key: string, value: unknown): Sql | undefined {
  if (isJsonObject(value)) {
    const parts: Sql[] = [];
    for (const [sub, v] of flattenObject(value)) {
      const part = attributeIsSql(key + '.' + sub, v);
      if (part === undefined) return undefined;
      parts.push(part);
    }
    return allOf(parts);
  }
  const path = attributePath(key);
  return path === undefined ? undefined : sameValueSql(path, value);
}

function attributeSql(c: Condition): Sql | undefined {
  const key = c.key!;
  const path = attributePath(key);
  if (path === undefined) return undefined;
  const type = `json_type(record, ${path})`;
  const stored = `json_extract(record, ${path})`;
  switch (c.operator) {
    case 'exists': case 'not_exists': {
      // Stored at the key, or some stored key starts with `key.`: those sort from `key.` to just before `key/`.
      const found = definite({
        sql: `${type} IS NOT NULL OR EXISTS (SELECT 1 FROM json_each(record, '$.attributes') WHERE key >= ? AND key < ?)`,
        params: [key + '.', key + '/'],
      });
      return c.operator === 'exists' ? found : { sql: `NOT (${found.sql})`, params: found.params };
    }
    case 'is': {
      const sql = attributeIsSql(key, c.value);
      return sql === undefined ? undefined : definite(sql);
    }
    case 'in': {
      const parts: Sql[] = [];
      for (const v of c.value as unknown[]) {
        const part = attributeIsSql(key, v);
        if (part === undefined) return undefined;
        parts.push(part);
      }
      return definite(anyOf(parts));
    }
    case 'contains': {
      // A stored list with an element equal to the value; or, for a string value, a stored string holding it.
      const element = eachValueSql(c.value);
      if (element === undefined) return undefined;
      const inList = { sql: `${type} = 'array' AND EXISTS (SELECT 1 FROM json_each(record, ${path}) WHERE ${element.sql})`, params: element.params };
      if (typeof c.value !== 'string') return definite(inList);
      const text = textSql(stored, 'contains', c.value, c.caseSensitive);
      if (text === undefined) return undefined;
      return definite(anyOf([inList, { sql: `${type} = 'text' AND ${text.sql}`, params: text.params }]));
    }
    case 'startswith': case 'endswith': {
      if (typeof c.value !== 'string') return FALSE;
      const text = textSql(stored, c.operator, c.value, c.caseSensitive);
      return text === undefined ? undefined : definite({ sql: `${type} = 'text' AND ${text.sql}`, params: text.params });
    }
    default: {
      const ordered = orderedSql(stored, c.operator, c.value, 'json', type);
      return ordered === undefined ? undefined : definite(ordered);
    }
  }
}

/**
 * links / references: `exists` when the stored list is not empty; `in` when some stored entry equals
 * every given field of some given entry. `fields`: the fields SQL compares (references' `id` is not).
 */
function entriesSql(c: Condition, path: string, fields: readonly string[]): Sql | undefined {
  if (c.operator === 'exists' || c.operator === 'not_exists') {
    const some = definite({ sql: `json_type(record, '${path}') = 'array' AND json_array_length(record, '${path}') > 0`, params: [] });
    return c.operator === 'exists' ? some : { sql: `NOT (${some.sql})`, params: [] };
  }
  const given = c.value as Array<Record<string, string>>;
  const alternatives: Sql[] = [];
  for (const entry of given) {
    const parts: Sql[] = [];
    for (const [name, v] of Object.entries(entry)) {
      if (!fields.includes(name)) return undefined;
      // A field of an entry that is not an object is absent (JavaScript: `'x'.slug` is undefined).
      parts.push({ sql: `type = 'object' AND json_extract(value, '$.${name}') = ?`, params: [v] });
    }
    alternatives.push(allOf(parts));
  }
  const match = anyOf(alternatives);
  // A stored value that is not a list holds no entries (JavaScript: Array.isArray).
  return definite({
    sql: `json_type(record, '${path}') = 'array' AND EXISTS (SELECT 1 FROM json_each(record, '${path}') WHERE ${match.sql})`,
    params: match.params,
  });
}
