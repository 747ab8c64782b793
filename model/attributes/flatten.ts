// flatten(object) -> ordered flat map (ag-namespace.md §1.2). Runs at the edge for every submitted
// attribute object and inside `namespace` for decoded JSON, so it is written as one plain loop.
//
// The walk is iterative (an explicit stack) rather than recursive: values decoded from JSON strings
// inside attributes are not bounded by the request's nesting limit, and a deep one must not overflow
// the call stack.
import type { AttrScalar, Attributes } from '../span.ts';
import { AttributeList } from './list.ts';

/** A string, number, bigint, boolean or null: emitted as one value. */
function isScalar(v: unknown): boolean {
  const t = typeof v;
  return v === null || t === 'string' || t === 'number' || t === 'boolean' || t === 'bigint';
}

/** NaN and the infinities are not valid in the flat form; they travel as their names (§1.1). */
function scalarOf(v: unknown): AttrScalar {
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return v as AttrScalar;
}

/**
 * An array whose elements are all scalars is one value. Returns the array (copied only when a
 * non-finite number must be rewritten), or undefined when it has to be expanded by index.
 */
function scalarArray(arr: unknown[]): AttrScalar[] | undefined {
  let copy = false;
  for (let i = 0; i < arr.length; i++) {
    const e = arr[i];
    if (!isScalar(e)) {
      // `undefined` cannot come from JSON; a sparse hole or undefined counts as null.
      if (e === undefined) { copy = true; continue; }
      return undefined;
    }
    if (typeof e === 'number' && !Number.isFinite(e)) copy = true;
  }
  if (!copy) return arr as AttrScalar[];
  const out: AttrScalar[] = new Array(arr.length);
  for (let i = 0; i < arr.length; i++) out[i] = arr[i] === undefined ? null : scalarOf(arr[i]);
  return out;
}

/** One level being walked: an object's keys or an expanded array. */
interface Frame {
  prefix: string;
  keys: string[] | undefined;
  obj: Record<string, unknown> | unknown[] | Map<string, unknown>;
  i: number;
}

/** Member names of an object; a Map (the ordered trees `namespace` builds) or an AttributeList counts
 *  as an object. */
function keysOf(v: object): string[] {
  if (v instanceof AttributeList) return v.keyArray.slice();
  return v instanceof Map ? Array.from((v as Map<string, unknown>).keys()) : Object.keys(v);
}

function member(obj: Record<string, unknown> | Map<string, unknown>, k: string): unknown {
  return obj instanceof Map || obj instanceof AttributeList ? obj.get(k) : obj[k];
}

/**
 * Flattens `value` found at path `prefix` into `out`. A key emitted twice keeps the last value at the
 * first position (Map.set). Object keys are used verbatim, so dots inside keys become segments.
 * A `Map<string, unknown>` is walked like an object, in its insertion order.
 */
export function flattenInto(value: unknown, prefix: string, out: Attributes): void {
  // Scalars first and with no helper calls: nearly every attribute value is one.
  switch (typeof value) {
    case 'string': case 'boolean': case 'bigint': out.set(prefix, value); return;
    case 'number': out.set(prefix, Number.isFinite(value) ? value : String(value)); return;
    case 'object': if (value === null) { out.set(prefix, null); return; } break;
    default: return;
  }
  let first: Frame;
  if (Array.isArray(value)) {
    const s = scalarArray(value);
    if (s !== undefined) { out.set(prefix, s); return; }
    first = { prefix, keys: undefined, obj: value, i: 0 };
  } else {
    const keys = keysOf(value as object);
    if (keys.length === 0) return;
    first = { prefix, keys, obj: value as Record<string, unknown>, i: 0 };
  }
  const stack: Frame[] = [first];
  while (stack.length > 0) {
    const f = stack[stack.length - 1];
    const inArray = f.keys === undefined;
    const n = inArray ? (f.obj as unknown[]).length : (f.keys as string[]).length;
    if (f.i >= n) { stack.pop(); continue; }
    let key: string;
    let v: unknown;
    if (inArray) {
      key = f.prefix + '.' + f.i;
      v = (f.obj as unknown[])[f.i];
      if (v === undefined) v = null;
    } else {
      const k = (f.keys as string[])[f.i];
      key = f.prefix + '.' + k;
      v = member(f.obj as Record<string, unknown>, k);
    }
    f.i++;
    if (isScalar(v)) { out.set(key, scalarOf(v)); continue; }
    if (v === undefined || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      const s = scalarArray(v);
      if (s !== undefined) out.set(key, s);
      else stack.push({ prefix: key, keys: undefined, obj: v, i: 0 });
      continue;
    }
    const keys = keysOf(v as object);
    if (keys.length === 0) {
      // An empty object keeps its index inside an expanded array, and vanishes elsewhere.
      if (inArray) out.set(key, null);
      continue;
    }
    stack.push({ prefix: key, keys, obj: v as Record<string, unknown>, i: 0 });
  }
}

/** Flattens a whole attribute object: each member `k` at path `k` (§1.2). */
export function flattenObject(obj: Record<string, unknown>): AttributeList {
  const out = new AttributeList();
  for (const k of Object.keys(obj)) flattenInto(obj[k], k, out);
  return out;
}
