// Table-driven semantic-convention rows (ag-namespace.md §6.1). A family is a list of rows applied in
// table order into the family's own flat output, where the earlier row wins a key both produce.
import { flattenInto } from '../../../model/attributes/flatten.ts';
import { AttributeList } from '../../../model/attributes/list.ts';
import { isSpanType, type AttrValue, type Attributes } from '../../../model/span.ts';
import { NOT_JSON, isBelow, isFlatValue, isPlainObject, tryJson } from '../keys.ts';
import { mayWriteDataJsonSlot } from '../decode.ts';
import { PlannedOutput, type RowOutput } from './planned-output.ts';

export type Row =
  /** exact source key -> target key */
  | { kind: 'copy'; src: string; dst: string }
  /** every `src.<rest>` -> `dst.<rest>`, or `dst.<path(rest)>` (src and dst given without the trailing dot) */
  | { kind: 'prefix'; src: string; dst: string; path?: (rest: string) => string }
  /** a string parsed as JSON (raw string when it does not parse); structured values flattened under dst */
  | { kind: 'json'; src: string; dst: string }
  /** the value mapped to a span type, landing at ag.type.span only when valid */
  | { kind: 'type'; src: string; map: (value: string) => string | undefined }
  /**
   * anything the kinds above cannot say; `dst` is the target it writes at or below, `note` what it does
   * (for the table in the namespace README). `sources`: the key
   * prefixes it reads its input from; a span with no key starting with one of them gets nothing from
   * the row, so plans leave it out (plan.test.ts holds planned and general paths equal).
   */
  | { kind: 'custom'; dst: string; sources: readonly string[]; note: string; run: (attrs: Attributes, out: RowOutput) => void };

export interface Family {
  name: string;
  /** Key prefixes (or exact keys) that may feed a row: a span with none of them skips the family. */
  triggers: readonly string[];
  rows: readonly Row[];
}

/** Within a family the earlier row wins a key. */
export function put(out: RowOutput, key: string, value: AttrValue): void {
  if (!out.has(key)) out.set(key, value);
}

/** Puts a (possibly structured) value at `dst`: flattened under it, each key put with `put`. */
export function putValue(out: RowOutput, dst: string, value: unknown): void {
  if (isFlatValue(value)) { put(out, dst, value as AttrValue); return; }
  const tmp = new AttributeList();
  flattenInto(value, dst, tmp);
  for (const [k, v] of tmp) put(out, k, v);
}

/** A finish reason (or a list of them) at `dst` as a list, the form gen_ai's `finish_reasons` has. */
export function putFinishReasons(attrs: Attributes, out: RowOutput, src: string): void {
  const v = attrs.get(src);
  if (v === undefined) return;
  put(out, 'ag.meta.response.finish_reasons', Array.isArray(v) ? v : [v]);
}

/**
 * A message whose `list` field holds only text parts (`{"type": "text", <text>: "..."}`) reads as the
 * same message with those texts joined as `content` in place of the list, the form OpenInference and
 * OpenLLMetry messages land in, so one chat call gives the same ag.data whichever SDK recorded it. Any
 * other message (an empty list, an image or tool-call part) is returned as it is. The families differ
 * only in the field names: GenAI's `parts`/`content`, the Vercel AI SDK's `content`/`text`.
 */
export function joinTextParts(message: unknown, list: string, text: string): unknown {
  if (!isPlainObject(message)) return message;
  const parts = message[list];
  if (!Array.isArray(parts) || parts.length === 0) return message;
  let content = '';
  for (const part of parts) {
    if (!isPlainObject(part) || part.type !== 'text' || typeof part[text] !== 'string') return message;
    content += part[text];
  }
  if (list === 'content') return { ...message, content };
  const { [list]: _list, ...rest } = message;
  return { ...rest, content };
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
 * A family with the lookup tables of its rows, made once when the module loads: the rows fed by one exact
 * source key, so a span's few keys are looked up in the table instead of every row looking its source up
 * in the span; and the prefix rows' `src.` and `dst.` strings.
 */
export interface FamilyIndex {
  family: Family;
  bySource: Map<string, number[]>;
  prefixDot: string[];
  /** Prefix rows' `dst.`: every key such a row writes is strictly below it. */
  dstDot: string[];
  /** 1 for rows fed by one exact source key (copy, json, type): skipped when that key is absent. */
  exact: Uint8Array;
  /** rowTarget of each row. */
  target: string[];
  /** The prefix and custom rows, in order. */
  inexact: number[];
  /** 1 for rows that may write a data slot S5 decodes (mayWriteDataJsonSlot of the target). */
  dataSlot: Uint8Array;
}

export function indexFamily(family: Family): FamilyIndex {
  const rows = family.rows;
  const ix: FamilyIndex = { family, bySource: new Map(), prefixDot: new Array(rows.length).fill(''),
    dstDot: new Array(rows.length).fill(''), exact: new Uint8Array(rows.length), target: rows.map(rowTarget),
    inexact: [], dataSlot: new Uint8Array(rows.length) };
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    if (row.kind === 'copy' || row.kind === 'json' || row.kind === 'type') {
      ix.exact[r] = 1;
      const list = ix.bySource.get(row.src);
      if (list === undefined) ix.bySource.set(row.src, [r]);
      else list.push(r);
    } else {
      ix.inexact.push(r);
      if (row.kind === 'prefix') {
        ix.prefixDot[r] = row.src + '.';
        ix.dstDot[r] = row.dst + '.';
      }
    }
    if (mayWriteDataJsonSlot(ix.target[r])) ix.dataSlot[r] = 1;
  }
  return ix;
}

/**
 * One row into `out`, its target already known to be free. `v` is the value of an exact row's source key
 * (copy, json, type); custom rows read `attrs`.
 */
function applyRow(row: Row, v: AttrValue | undefined, attrs: Attributes, out: RowOutput): void {
  switch (row.kind) {
    case 'copy': put(out, row.dst, v as AttrValue); break;
    case 'json': putValue(out, row.dst, decodeJson(v as AttrValue)); break;
    case 'type': {
      if (typeof v !== 'string') break;
      const t = row.map(v);
      if (t !== undefined && isSpanType(t)) put(out, 'ag.type.span', t);
      break;
    }
    case 'custom': row.run(attrs, out); break;
    case 'prefix': break; // runPlannedFamily maps the keys its plan found below the prefix
  }
}

/**
 * The rows of a family that can have work on spans with exactly this key sequence and are not dropped by
 * the explicit claims, decided once per key sequence (plan.ts). `source[j]` is the position in `keys` of
 * row `rows[j]`'s source key, -1 for prefix and custom rows.
 */
export interface FamilyPlan {
  index: FamilyIndex;
  rows: number[];
  source: number[];
  /** For a prefix row: the positions of the keys below its prefix, and their target keys. */
  prefixAt: (Int32Array | undefined)[];
  prefixTargets: (string[] | undefined)[];
  /** Some planned row may write a data slot that S5 decodes (mayWriteDataJsonSlot of its target). */
  dataSlots: boolean;
}

export function planFamily(ix: FamilyIndex, keys: readonly string[], claims: Claims): FamilyPlan {
  const rows = ix.family.rows;
  // The exact rows fed by a key of this sequence, as (row, key position) pairs in row order: a span has
  // a few such keys, the family tens of rows.
  const fed: number[] = [];
  for (let i = 0; i < keys.length; i++) {
    const list = ix.bySource.get(keys[i]);
    if (list === undefined) continue;
    for (let j = 0; j < list.length; j++) {
      let at = fed.length;
      fed.push(0, 0);
      while (at > 0 && fed[at - 2] > list[j]) { fed[at] = fed[at - 2]; fed[at + 1] = fed[at - 1]; at -= 2; }
      fed[at] = list[j];
      fed[at + 1] = i;
    }
  }
  const plan: FamilyPlan = { index: ix, rows: [], source: [], prefixAt: [], prefixTargets: [], dataSlots: false };
  // Merge the fed exact rows with the prefix and custom rows, in row order.
  const other = ix.inexact;
  let e = 0;
  let o = 0;
  while (e < fed.length || o < other.length) {
    let r: number;
    let pos = -1;
    if (o >= other.length || (e < fed.length && fed[e] < other[o])) { r = fed[e]; pos = fed[e + 1]; e += 2; }
    else r = other[o++];
    if (claims.conflicts(ix.target[r])) continue;
    const row = rows[r];
    // A prefix row maps the keys below its prefix: which ones is a property of the key sequence.
    let prefixAt: Int32Array | undefined;
    let prefixTargets: string[] | undefined;
    if (row.kind === 'prefix') {
      const prefixDot = ix.prefixDot[r];
      const below: number[] = [];
      for (let i = 0; i < keys.length; i++) if (isBelow(keys[i], prefixDot)) below.push(i);
      if (below.length === 0) continue;
      prefixAt = Int32Array.from(below);
      prefixTargets = new Array<string>(below.length);
      for (let m = 0; m < below.length; m++) {
        const rest = keys[below[m]].slice(row.src.length + 1);
        prefixTargets[m] = row.dst + '.' + (row.path === undefined ? rest : row.path(rest));
      }
    } else if (row.kind === 'custom' && !anyStartsWith(keys, row.sources)) continue;
    plan.rows.push(r);
    plan.source.push(pos);
    plan.prefixAt.push(prefixAt);
    plan.prefixTargets.push(prefixTargets);
    if (ix.dataSlot[r] === 1) plan.dataSlots = true;
  }
  return plan;
}

function anyStartsWith(keys: readonly string[], prefixes: readonly string[]): boolean {
  for (let i = 0; i < keys.length; i++) for (let j = 0; j < prefixes.length; j++) if (keys[i].startsWith(prefixes[j])) return true;
  return false;
}

/**
 * The family's rows for a span whose keys are the ones `plan` was made for. `later` holds what higher
 * families of this span mapped (undefined when none ran before). Writes into `out`.
 */
export function runPlannedFamily(plan: FamilyPlan, attrs: Attributes, later: Claims | undefined, out: RowOutput): void {
  const values = attrs.valueArray;
  const ix = plan.index;
  const rows = ix.family.rows;
  for (let j = 0; j < plan.rows.length; j++) {
    const r = plan.rows[j];
    if (later !== undefined && later.conflicts(ix.target[r])) continue;
    const prefixAt = plan.prefixAt[j];
    if (prefixAt !== undefined) {
      // applyRow's prefix case, over the keys the plan found below the prefix.
      const targets = plan.prefixTargets[j] as string[];
      // The targets are distinct keys below `dst.`: when the output holds none there yet, no put can
      // find its key taken, and the members go in without a lookup each (a prefix row maps a whole
      // conversation, ~20 keys on an LLM-call span).
      if (out instanceof PlannedOutput && !out.anyBelow(ix.dstDot[r])) {
        for (let m = 0; m < prefixAt.length; m++) out.append(targets[m], values[prefixAt[m]]);
      } else {
        for (let m = 0; m < prefixAt.length; m++) put(out, targets[m], values[prefixAt[m]]);
      }
      continue;
    }
    const src = plan.source[j];
    applyRow(rows[r], src >= 0 ? values[src] : undefined, attrs, out);
  }
}

/** True when some key starts with `prefix`. */
export function hasPrefix(attrs: Attributes, prefix: string): boolean {
  for (const k of attrs.keys()) if (k.startsWith(prefix)) return true;
  return false;
}
