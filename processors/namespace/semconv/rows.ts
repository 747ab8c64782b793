// Table-driven semantic-convention rows (ag-namespace.md §6.1). A family is a list of rows applied in
// table order into the family's own flat output, where the earlier row wins a key both produce.
import { flattenInto } from '../../../pipeline/attributes/flatten.ts';
import type { AttrValue, Attributes } from '../../../pipeline/span.ts';
import { NOT_JSON, isFlatValue, tryJson } from '../keys.ts';
import { isSpanType } from '../clean.ts';

export type Row =
  /** exact source key -> target key */
  | { kind: 'copy'; src: string; dst: string }
  /** every `src.<rest>` -> `dst.<rest>` (src and dst given without the trailing dot) */
  | { kind: 'prefix'; src: string; dst: string }
  /** a string parsed as JSON (raw string when it does not parse); structured values flattened under dst */
  | { kind: 'json'; src: string; dst: string }
  /** the value mapped to a span type, landing at ag.type.span only when valid */
  | { kind: 'type'; src: string; map: (value: string) => string | undefined }
  /** anything the kinds above cannot say; `dst` is the target it writes at or below */
  | { kind: 'custom'; dst: string; run: (attrs: Attributes, out: Attributes) => void };

export interface Family {
  name: string;
  /** Key prefixes (or exact keys) that may feed a row: a span with none of them skips the family. */
  triggers: readonly string[];
  rows: readonly Row[];
}

/** Within a family the earlier row wins a key. */
export function put(out: Attributes, key: string, value: AttrValue): void {
  if (!out.has(key)) out.set(key, value);
}

/** Puts a (possibly structured) value at `dst`: flattened under it, each key put with `put`. */
export function putValue(out: Attributes, dst: string, value: unknown): void {
  if (isFlatValue(value)) { put(out, dst, value as AttrValue); return; }
  const tmp: Attributes = new Map();
  flattenInto(value, dst, tmp);
  for (const [k, v] of tmp) put(out, k, v);
}

/** JSON text parsed, or the raw value when it is not a string or does not parse. */
export function decodeJson(value: AttrValue): unknown {
  if (typeof value !== 'string') return value;
  const parsed = tryJson(value);
  return parsed === NOT_JSON ? value : parsed;
}

/** Lower-cased, kept when it is a span type (for type rows that only normalise case). */
export function lowerType(value: string): string | undefined {
  const t = value.toLowerCase();
  return isSpanType(t) ? t : undefined;
}

/** The target key T of a row: its output is dropped whole when T is claimed (§6.1). */
export function rowTarget(row: Row): string {
  return row.kind === 'type' ? 'ag.type.span' : row.dst;
}

/** Answers whether a target is already held (at, above or below) by the explicit keys or a higher family. */
export interface Claims {
  conflicts(target: string): boolean;
}

/**
 * Runs a family's rows over the span attributes, skipping each row whose target is claimed; returns the
 * family's flat output in row order.
 */
export function runFamily(family: Family, attrs: Attributes, claims: Claims): Attributes {
  const out: Attributes = new Map();
  const rows = family.rows;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    // Most rows find no source on a given span: look that up before the (costlier) claim check.
    switch (row.kind) {
      case 'copy': {
        const v = attrs.get(row.src);
        if (v !== undefined && !claims.conflicts(row.dst)) put(out, row.dst, v);
        break;
      }
      case 'prefix': {
        if (claims.conflicts(row.dst)) break;
        const p = row.src + '.';
        for (const [k, v] of attrs) {
          if (k.length > p.length && k.startsWith(p)) put(out, row.dst + k.slice(row.src.length), v);
        }
        break;
      }
      case 'json': {
        const v = attrs.get(row.src);
        if (v !== undefined && !claims.conflicts(row.dst)) putValue(out, row.dst, decodeJson(v));
        break;
      }
      case 'type': {
        const v = attrs.get(row.src);
        if (typeof v !== 'string' || claims.conflicts('ag.type.span')) break;
        const t = row.map(v);
        if (t !== undefined && isSpanType(t)) put(out, 'ag.type.span', t);
        break;
      }
      case 'custom':
        if (!claims.conflicts(row.dst)) row.run(attrs, out);
        break;
    }
  }
  return out;
}

/** True when some key starts with `prefix`. */
export function hasPrefix(attrs: Attributes, prefix: string): boolean {
  for (const k of attrs.keys()) if (k.startsWith(prefix)) return true;
  return false;
}
