// Table-driven semantic-convention rows (ag-namespace.md §6.1). A family is a list of rows applied in
// table order into the family's own flat output, where the earlier row wins a key both produce.
import { flattenInto } from '../../../model/attributes/flatten.ts';
import { AttributeList } from '../../../model/attributes/list.ts';
import { isSpanType, type AttrValue, type Attributes } from '../../../model/span.ts';
import { NOT_JSON, isBelow, isFlatValue, tryJson } from '../keys.ts';

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
  /**
   * anything the kinds above cannot say; `dst` is the target it writes at or below. `sources`: the key
   * prefixes it reads its input from; a span with no key starting with one of them gets nothing from it.
   */
  | { kind: 'custom'; dst: string; sources: readonly string[]; run: (attrs: Attributes, out: Attributes) => void };

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
function rowTarget(row: Row): string {
  return row.kind === 'type' ? 'ag.type.span' : row.dst;
}

/** Answers whether a target is already held (at, above or below) by the explicit keys or a higher family. */
export interface Claims {
  conflicts(target: string): boolean;
}

/** The rows of a family with a source among a span's keys, in row order, and the position of each
 *  row's (first) source key. */
export interface RowMatch {
  rows: number[];
  at: number[];
  /** For a prefix row: the positions of the keys below its prefix, and their target keys. */
  below: (Int32Array | undefined)[];
  targets: (string[] | undefined)[];
}

/**
 * One family's rows ready to run, with the memos and scratch of one processor: the rows fed by one exact
 * source key by that key, so a span's few keys are looked up in the table instead of every row looking
 * its source up in the span.
 */
export class FamilyRunner {
  readonly family: Family;
  private readonly bySource = new Map<string, number[]>();
  /** 1 at the (ASCII) first character of some exact source key: other keys skip the lookup. */
  private readonly firstChar = new Uint8Array(128);
  /** Prefix and custom rows by the (ASCII) first character of their source prefixes, and those prefixes. */
  private readonly scannedByChar: number[][] = Array.from({ length: 128 }, () => []);
  private readonly sources: string[][];
  /** Prefix rows' `src.` and `dst.`; `dstDot` stays empty for a row with a `path` (not one-to-one). */
  private readonly prefixDot: string[];
  private readonly dstDot: string[];
  /** Prefix rows' target key for a source key. */
  private readonly rewrite: (((key: string) => string) | undefined)[];
  private readonly target: string[];
  /** Scratch of match(): row r has a source when mark[r] === gen, its (first) source key at from[r]. */
  private readonly mark: Int32Array;
  private readonly from: Int32Array;
  private gen = 0;

  constructor(family: Family) {
    this.family = family;
    const rows = family.rows;
    this.prefixDot = new Array(rows.length).fill('');
    this.dstDot = new Array(rows.length).fill('');
    this.rewrite = new Array(rows.length).fill(undefined);
    this.sources = new Array(rows.length).fill(undefined).map(() => []);
    this.target = rows.map(rowTarget);
    this.mark = new Int32Array(rows.length);
    this.from = new Int32Array(rows.length);
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r];
      if (row.kind === 'copy' || row.kind === 'json' || row.kind === 'type') {
        const c = row.src.charCodeAt(0);
        if (c < 128) this.firstChar[c] = 1;
        const list = this.bySource.get(row.src);
        if (list === undefined) this.bySource.set(row.src, [r]);
        else list.push(r);
      } else if (row.kind === 'prefix') {
        const { src, dst, path } = row;
        this.prefixDot[r] = src + '.';
        if (path === undefined) this.dstDot[r] = dst + '.';
        this.rewrite[r] = path === undefined
          ? (k) => dst + k.slice(src.length)
          : (k) => dst + '.' + path(k.slice(src.length + 1));
      }
      if (row.kind === 'prefix' || row.kind === 'custom') {
        this.sources[r] = row.kind === 'prefix' ? [row.src + '.'] : [...row.sources];
        for (const p of this.sources[r]) {
          const list = this.scannedByChar[p.charCodeAt(0)];
          if (!list.includes(r)) list.push(r);
        }
      }
    }
  }

  /**
   * The rows with a source among `keys` (unique), in row order: one pass over the keys, exact sources
   * by lookup, prefixes by their first character. It depends on the keys only, so a caller may keep it
   * for spans with the same keys.
   */
  match(keys: readonly string[]): RowMatch {
    if (this.gen >= 0x3fffffff) { this.mark.fill(0); this.gen = 0; }
    const gen = ++this.gen;
    const { mark, from, firstChar, bySource, scannedByChar, sources } = this;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      const c = k.charCodeAt(0);
      // `!(c < 128)` also covers the empty key, whose charCodeAt(0) is NaN.
      if (!(c < 128)) continue;
      if (firstChar[c] === 1) {
        const list = bySource.get(k);
        if (list !== undefined) for (let j = 0; j < list.length; j++) { mark[list[j]] = gen; from[list[j]] = i; }
      }
      const scanned = scannedByChar[c];
      for (let j = 0; j < scanned.length; j++) {
        const r = scanned[j];
        if (mark[r] === gen) continue;
        const prefixes = sources[r];
        for (let p = 0; p < prefixes.length; p++) {
          if (k.startsWith(prefixes[p])) { mark[r] = gen; from[r] = i; break; }
        }
      }
    }
    const m: RowMatch = { rows: [], at: [], below: [], targets: [] };
    for (let r = 0; r < mark.length; r++) {
      if (mark[r] !== gen) continue;
      m.rows.push(r);
      m.at.push(from[r]);
      const rewrite = this.rewrite[r];
      if (rewrite === undefined) {
        m.below.push(undefined);
        m.targets.push(undefined);
        continue;
      }
      // Which keys a prefix row maps, and where to, is a property of the keys.
      const prefixDot = this.prefixDot[r];
      const below: number[] = [];
      const targets: string[] = [];
      for (let i = from[r]; i < keys.length; i++) {
        if (isBelow(keys[i], prefixDot)) { below.push(i); targets.push(rewrite(keys[i])); }
      }
      m.below.push(Int32Array.from(below));
      m.targets.push(targets);
    }
    return m;
  }

  /** The rows of `m` whose target `claims` leaves free. */
  keep(m: RowMatch, claims: Claims): RowMatch {
    const kept: RowMatch = { rows: [], at: [], below: [], targets: [] };
    for (let j = 0; j < m.rows.length; j++) {
      if (claims.conflicts(this.target[m.rows[j]])) continue;
      kept.rows.push(m.rows[j]);
      kept.at.push(m.at[j]);
      kept.below.push(m.below[j]);
      kept.targets.push(m.targets[j]);
    }
    return kept;
  }

  /**
   * Runs the matched rows over the span attributes (whose keys `m` was matched on), skipping each row
   * whose target is claimed; returns the family's flat output in row order.
   */
  run(attrs: AttributeList, m: RowMatch, claims: Claims): AttributeList {
    const out = new AttributeList();
    const rows = this.family.rows;
    const values = attrs.valueArray;
    for (let j = 0; j < m.rows.length; j++) {
      const r = m.rows[j];
      if (claims.conflicts(this.target[r])) continue;
      const below = m.below[j];
      if (below === undefined) this.apply(rows[r], values[m.at[j]], attrs, out);
      else {
        // A prefix row. A plain prefix rewrite gives distinct keys below `dst.`: while the output holds
        // none there, no put can find its key taken, and the keys go in without a lookup each.
        const targets = m.targets[j] as string[];
        const dstDot = this.dstDot[r];
        if (dstDot !== '' && !anyBelow(out, dstDot)) {
          for (let i = 0; i < below.length; i++) out.append(targets[i], values[below[i]]);
        } else {
          for (let i = 0; i < below.length; i++) put(out, targets[i], values[below[i]]);
        }
      }
    }
    return out;
  }

  /** One row other than a prefix row into `out`, its target known to be free; `v` its source key's value. */
  private apply(row: Row, v: AttrValue, attrs: AttributeList, out: AttributeList): void {
    switch (row.kind) {
      case 'copy': put(out, row.dst, v); break;
      case 'json': putValue(out, row.dst, decodeJson(v)); break;
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

/** Some key of `list` is strictly below `prefixDot` (a prefix ending in a dot). */
function anyBelow(list: AttributeList, prefixDot: string): boolean {
  const keys = list.keyArray;
  for (let i = 0; i < keys.length; i++) if (isBelow(keys[i], prefixDot)) return true;
  return false;
}

/** True when some key starts with `prefix`. */
export function hasPrefix(attrs: Attributes, prefix: string): boolean {
  for (const k of attrs.keys()) if (k.startsWith(prefix)) return true;
  return false;
}
