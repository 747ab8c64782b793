// Table-driven semantic-convention rows (ag-namespace.md §6.1). A family is a list of rows applied in
// table order into the family's own flat output, where the earlier row wins a key both produce.
import { flattenInto } from '../../../pipeline/attributes/flatten.ts';
import { AttributeList } from '../../../pipeline/attributes/list.ts';
import { isSpanType, type AttrValue, type Attributes } from '../../../pipeline/span.ts';
import { NOT_JSON, isBelow, isFlatValue, tryJson } from '../keys.ts';
import { RewriteMemo } from './rewrite-memo.ts';

export type Row =
  /** exact source key -> target key */
  | { kind: 'copy'; src: string; dst: string }
  /**
   * every `src.<rest>` -> `dst.<path(rest)>` (src and dst given without the trailing dot; `path` keeps
   * `rest` as it is when absent)
   */
  | { kind: 'prefix'; src: string; dst: string; path?: (rest: string) => string }
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
 * One family's rows ready to run, with the memos and scratch of one processor: the rows fed by one exact
 * source key by that key, so a span's few keys are looked up in the table instead of every row looking
 * its source up in the span.
 */
export class FamilyRunner {
  readonly family: Family;
  private readonly bySource = new Map<string, number[]>();
  /** 1 at the (ASCII) first character of some source key: other keys skip the lookup. */
  private readonly firstChar = new Uint8Array(128);
  /** Prefix rows' `src.`. */
  private readonly prefixDot: string[];
  /**
   * Prefix rows' target keys by source key. Spans of one instrumentation carry the same keys span after
   * span, so a source key maps to the very same target string each time: no slicing and concatenating
   * per key and span, and later lookups find a string whose hash is already computed.
   */
  private readonly prefixTargets: (RewriteMemo | undefined)[];
  /** 1 for rows fed by one exact source key (copy, json, type): skipped without a look when it is absent. */
  private readonly exact: Uint8Array;
  private readonly target: string[];
  /** Row r has its source on the current span when mark[r] === gen; its value is then vals[r]. */
  private readonly mark: Int32Array;
  private readonly vals: (AttrValue | undefined)[];
  private gen = 0;

  constructor(family: Family) {
    this.family = family;
    const rows = family.rows;
    this.prefixDot = new Array(rows.length).fill('');
    this.prefixTargets = new Array(rows.length).fill(undefined);
    this.exact = new Uint8Array(rows.length);
    this.target = rows.map(rowTarget);
    this.mark = new Int32Array(rows.length);
    this.vals = new Array(rows.length).fill(undefined);
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r];
      if (row.kind === 'copy' || row.kind === 'json' || row.kind === 'type') {
        this.exact[r] = 1;
        const c = row.src.charCodeAt(0);
        if (c < 128) this.firstChar[c] = 1;
        const list = this.bySource.get(row.src);
        if (list === undefined) this.bySource.set(row.src, [r]);
        else list.push(r);
      } else if (row.kind === 'prefix') {
        const { src, dst, path } = row;
        this.prefixDot[r] = src + '.';
        this.prefixTargets[r] = new RewriteMemo(path === undefined
          ? (k) => dst + k.slice(src.length)
          : (k) => dst + '.' + path(k.slice(src.length + 1)));
      }
    }
  }

  /**
   * Runs the rows over the span attributes, skipping each row whose target is claimed; returns the
   * family's flat output in row order.
   */
  run(attrs: Attributes, claims: Claims): AttributeList {
    const out = new AttributeList();
    const rows = this.family.rows;
    if (this.gen >= 0x3fffffff) { this.mark.fill(0); this.gen = 0; }
    const gen = ++this.gen;
    const { mark, vals, exact, firstChar, bySource } = this;
    // forEach: no entry pair per member, for a Map or an AttributeList alike.
    attrs.forEach((v, k) => {
      const c = k.charCodeAt(0);
      if (c < 128 && firstChar[c] === 0) return;
      const list = bySource.get(k);
      if (list === undefined) return;
      for (let i = 0; i < list.length; i++) { mark[list[i]] = gen; vals[list[i]] = v; }
    });
    for (let r = 0; r < rows.length; r++) {
      // Most rows find no source on a given span: skipped before even reading the row.
      if (exact[r] === 1 && mark[r] !== gen) continue;
      const v = vals[r];
      vals[r] = undefined;
      if (!claims.conflicts(this.target[r])) this.apply(rows[r], r, v, attrs, out);
    }
    return out;
  }

  /**
   * One row into `out`, its target already known to be free. `v` is the value of an exact row's source
   * key (copy, json, type); prefix and custom rows read `attrs`.
   */
  private apply(row: Row, r: number, v: AttrValue | undefined, attrs: Attributes, out: Attributes): void {
    switch (row.kind) {
      case 'copy': put(out, row.dst, v as AttrValue); break;
      case 'prefix': {
        const prefixDot = this.prefixDot[r];
        const targets = this.prefixTargets[r] as RewriteMemo;
        attrs.forEach((pv, k) => {
          if (isBelow(k, prefixDot)) put(out, targets.of(k), pv);
        });
        break;
      }
      case 'json': putValue(out, row.dst, decodeJson(v as AttrValue)); break;
      case 'type': {
        if (typeof v !== 'string') break;
        const t = row.map(v);
        if (t !== undefined && isSpanType(t)) put(out, 'ag.type.span', t);
        break;
      }
      case 'custom': row.run(attrs, out); break;
    }
  }
}

/** True when some key starts with `prefix`. */
export function hasPrefix(attrs: Attributes, prefix: string): boolean {
  for (const k of attrs.keys()) if (k.startsWith(prefix)) return true;
  return false;
}
