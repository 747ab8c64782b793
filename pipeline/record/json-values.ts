// JSON text for attribute values, written by hand because JSON.stringify cannot write bigint and the
// record must carry integers beyond +-(2^53-1) with every digit (span-record.md "JSON encoding").
import type { AttrValue, Attributes } from '../span.ts';
import { quoteJson } from './quote.ts';

/** A number as JSON. Non-finite doubles arrive as the strings `NaN`/`Infinity` (ag-namespace.md §1.1);
 *  should one still be a number, it is written the same way rather than as JSON's lossy `null`. */
export function numberJson(value: number): string {
  if (Number.isFinite(value)) return '' + value;
  return Number.isNaN(value) ? '"NaN"' : value > 0 ? '"Infinity"' : '"-Infinity"';
}

/** One flat attribute value: a scalar or an array of scalars. */
export function attrValueJson(value: AttrValue): string {
  switch (typeof value) {
    case 'string':
      return quoteJson(value);
    case 'number':
      return numberJson(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    default:
      if (value === null) return 'null';
      return scalarArrayJson(value);
  }
}

function scalarArrayJson(values: readonly AttrValue[]): string {
  if (values.length === 0) return '[]';
  let out = '[' + attrValueJson(values[0]);
  for (let i = 1; i < values.length; i++) out += ',' + attrValueJson(values[i]);
  return out + ']';
}

/** A flat attribute map as one JSON object, in map order. */
export function attributesJson(attributes: Attributes): string {
  if (attributes.size === 0) return '{}';
  let out = '{';
  let first = true;
  for (const [key, value] of attributes) {
    if (first) first = false;
    else out += ',';
    out += quoteJson(key) + ':' + attrValueJson(value as AttrValue);
  }
  return out + '}';
}

/**
 * Any plain JSON-like value (the nested attribute shape): objects, arrays and the scalars above.
 * `undefined` members are left out as JSON.stringify does; nothing else is expected.
 */
export function plainValueJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return quoteJson(value);
    case 'number':
      return numberJson(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ',';
          const item: unknown = value[i];
          out += item === undefined ? 'null' : plainValueJson(item);
        }
        return out + ']';
      }
      if (value instanceof Map) return attributesJson(value as Attributes);
      const keys = Object.keys(value);
      let out = '{';
      let first = true;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        const member = (value as Record<string, unknown>)[key];
        if (member === undefined) continue;
        if (first) first = false;
        else out += ',';
        out += quoteJson(key) + ':' + plainValueJson(member);
      }
      return out + '}';
    }
    default:
      return 'null';
  }
}
