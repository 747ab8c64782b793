// The tree slots of the `ag` layout (ag-namespace.md §3.1, §3.6) as the plan path sees them: what an `ag`
// key's name alone says about it (keyCode), and whether its value is what S7 keeps unchanged (placeCoded).
// A span whose keys and values all pass needs none of S2-S7's rewriting: its keys, sorted by slot, are
// the output.
import { normaliseUuid } from '../../model/ids.ts';
import { isSpanType, REFERENCE_KEYS, type AttrValue, type SpanReference } from '../../model/span.ts';
import { aliasTarget } from './aliases.ts';
import { isFiniteNumber } from './keys.ts';
import type { Cleaned, SlottedKeys } from './layout.ts';
import { SLUG, referenceAttributes } from './references.ts';

/** Tree slots in output order (§3.6); scalar slots go straight into Cleaned. */
export const PARAMETERS = 0;
const INPUTS = 1;
export const OUTPUTS = 2;
export const INTERNALS = 3;
const TOKENS_INC = 4;
const TOKENS_CUM = 5;
const COSTS_INC = 6;
const COSTS_CUM = 7;
export const REFERENCES = 8;
const FLAGS = 9;
const TAGS = 10;
const META = 11;
const EXCEPTION = 12;
const SELECTOR = 13;
const UNSUPPORTED = 14;
export const SLOT_COUNT = 15;

/** Slot roots without the trailing dot, by slot. */
export const ROOTS = [
  'ag.data.parameters', 'ag.data.inputs', 'ag.data.outputs', 'ag.data.internals', 'ag.metrics.tokens.incremental',
  'ag.metrics.tokens.cumulative', 'ag.metrics.costs.incremental', 'ag.metrics.costs.cumulative', 'ag.references',
  'ag.flags', 'ag.tags', 'ag.meta', 'ag.exception', 'ag.selector', 'ag.unsupported',
];
export const ROOT_LEN = ROOTS.map((r) => r.length);

/** How leaves of a slot are checked. */
export const FREE = 0; // any flat value, null is content
const NUMBERS = 1; // number or bigint leaves (token/cost trees)
const FLAG_LEAVES = 2; // string or boolean leaves (flags/tags)
const STRINGS = 3; // one level of string members (selector)
const REFERENCE = 4; // <key>.<field>, each already in the form S7 writes
export const KIND = [FREE, FREE, FREE, FREE, NUMBERS, NUMBERS, NUMBERS, NUMBERS, REFERENCE, FLAG_LEAVES, FLAG_LEAVES, FREE,
  FREE, STRINGS, FREE];

/** The slot groups below `ag.`, split by the character after `ag.` to keep the prefix tests few. */
const DATA = [PARAMETERS, INPUTS, OUTPUTS, INTERNALS];
const METRIC_TREES = [TOKENS_INC, TOKENS_CUM, COSTS_INC, COSTS_CUM];

/** Exact keys of the scalar slots. */
export const SPAN = 'ag.type.span';
const TRACE = 'ag.type.trace';
const SCALAR_KEYS = new Map<string, number>([
  [SPAN, 0], [TRACE, 1], ['ag.metrics.duration.incremental', 2], ['ag.metrics.duration.cumulative', 3],
  ['ag.metrics.errors.incremental', 4], ['ag.metrics.errors.cumulative', 5], ['ag.session.id', 6],
  ['ag.user.id', 7], ['ag.data.outputs', 8],
]);
/** keyCode(SPAN): the scalar slot `ag.type.node` is placed in too. */
export const SPAN_CODE = SCALAR_KEYS.get(SPAN) as number;

function startsAt(k: string, root: string, len: number): boolean {
  return k.length > len && k.charCodeAt(len) === 46 && k.startsWith(root);
}

/**
 * What the key alone says about an `ag` key (keyCode): refused whatever its value, a
 * scalar slot (0-7, the SCALAR_KEYS index), `ag.data.outputs` itself, a reference field, or a tree slot
 * (KEY_TREE + slot). placeCoded then checks the value.
 */
export const KEY_REFUSED = -1;
const KEY_OUTPUTS = 8;
const KEY_REF_ID = 9;
const KEY_REF_SLUG = 10;
const KEY_REF_VERSION = 11;
const KEY_TREE = 16;

/**
 * keyCode's answers by key, for one Normaliser: keys repeat in every span of an instrumentation, and one
 * lookup of an already hashed string costs less than the exact-key lookup and the chain of prefix tests.
 * Bounded: cleared when full; keys longer than MEMO_KEY_LENGTH are not kept.
 */
export class KeyCodes {
  private readonly memo = new Map<string, number>();

  /** The code of an `ag` key (`ag` itself or `ag.*`). */
  of(k: string): number {
    let code = this.memo.get(k);
    if (code !== undefined) return code;
    code = keyCode(k);
    if (k.length <= MEMO_KEY_LENGTH) {
      if (this.memo.size >= MEMO_SIZE) this.memo.clear();
      this.memo.set(k, code);
    }
    return code;
  }
}

const MEMO_SIZE = 4096;
const MEMO_KEY_LENGTH = 128;

/** The code of an `ag` key (`ag` itself or `ag.*`), from its name alone. */
export function keyCode(k: string): number {
  const exact = SCALAR_KEYS.get(k);
  if (exact !== undefined) return exact; // ag.data.outputs is 8 = KEY_OUTPUTS
  const s = treeSlotOf(k);
  if (s < 0) return KEY_REFUSED;
  // One level of members only below the selector.
  if (KIND[s] === STRINGS && k.indexOf('.', ROOT_LEN[s] + 1) >= 0) return KEY_REFUSED;
  // ag.meta.configuration is an alias (S3); so are some reference fields; the other aliases are outside
  // every tree slot.
  if (s === META && k.startsWith(CONFIGURATION) && (k.length === CONFIGURATION.length || k.charCodeAt(CONFIGURATION.length) === 46)) return KEY_REFUSED;
  if (s === REFERENCES) return referenceCode(k);
  return KEY_TREE + s;
}

/** Tree slot whose root is strictly above `k`, or -1. */
function treeSlotOf(k: string): number {
  let group: number[] | undefined;
  switch (k.charCodeAt(3)) {
    case 100 /* d */: group = DATA; break;
    case 109 /* m */:
      if (startsAt(k, 'ag.meta', 7)) return META;
      group = METRIC_TREES;
      break;
    case 102 /* f */: return startsAt(k, 'ag.flags', 8) ? FLAGS : -1;
    case 116 /* t */: return startsAt(k, 'ag.tags', 7) ? TAGS : -1;
    case 101 /* e */: return startsAt(k, 'ag.exception', 12) ? EXCEPTION : -1;
    case 115 /* s */: return startsAt(k, 'ag.selector', 11) ? SELECTOR : -1;
    case 117 /* u */: return startsAt(k, 'ag.unsupported', 14) ? UNSUPPORTED : -1;
    case 114 /* r */: return startsAt(k, 'ag.references', 13) ? REFERENCES : -1;
    default: return -1;
  }
  for (let i = 0; i < group.length; i++) {
    const s = group[i];
    if (startsAt(k, ROOTS[s], ROOT_LEN[s])) return s;
  }
  return -1;
}

/** A value flatten writes back unchanged: a scalar (finite number) or an array of them. */
export function plainValue(v: unknown): boolean {
  switch (typeof v) {
    case 'string': case 'boolean': case 'bigint': return true;
    case 'number': return Number.isFinite(v);
    case 'object': {
      if (v === null) return true;
      if (!Array.isArray(v)) return false;
      for (let i = 0; i < v.length; i++) {
        const e: unknown = v[i];
        const t = typeof e;
        if (t === 'string' || t === 'boolean' || t === 'bigint' || e === null) continue;
        if (t === 'number' && Number.isFinite(e)) continue;
        return false; // holes, objects, non-finite numbers: flatten would rewrite them
      }
      return true;
    }
    default: return false;
  }
}

function leafOk(kind: number, v: AttrValue): boolean {
  switch (kind) {
    case FREE: return plainValue(v);
    case NUMBERS: return isFiniteNumber(v);
    case FLAG_LEAVES: return typeof v === 'string' || typeof v === 'boolean';
    case STRINGS: return typeof v === 'string';
    case REFERENCE: return typeof v === 'string'; // reference keys have their own codes (placeCoded)
    default: return false;
  }
}

/**
 * Scalar slot `which` (index in SCALAR_KEYS) set on `c` when its value is what S7 keeps unchanged;
 * false sends the span down the general path (invalid values are quarantined there).
 */
function scalarSlot(which: number, v: AttrValue, c: Cleaned): boolean {
  switch (which) {
    case 0: if (!isSpanType(v)) return false; c.typeSpan = v; return true;
    case 1:
      if (v === 'invocation' || v === 'annotation') { c.typeTrace = v; return true; }
      return v === 'unknown'; // counts as absent, nothing quarantined
    case 2: if (!isFiniteNumber(v)) return false; c.durationIncremental = v; return true;
    case 3: if (!isFiniteNumber(v)) return false; c.durationCumulative = v; return true;
    case 4: if (!isFiniteNumber(v)) return false; c.errorsIncremental = v; return true;
    case 5: if (!isFiniteNumber(v)) return false; c.errorsCumulative = v; return true;
    case 6: if (typeof v !== 'string') return false; c.sessionId = v; return true;
    case 7: if (typeof v !== 'string') return false; c.userId = v; return true;
    default: return false;
  }
}

/** Places one `ag` key whose code is `code` into `c` (scalar slots) or `f` (tree slots); false when its
 *  value needs S2-S7 (the span then takes the general path). */
export function placeCoded(code: number, k: string, v: AttrValue, c: Cleaned, f: SlottedKeys): boolean {
  if (code >= KEY_TREE) {
    const s = code - KEY_TREE;
    if (!leafOk(KIND[s], v)) return false;
    addSlotted(f, k, v, s);
    return true;
  }
  switch (code) {
    case KEY_REFUSED: return false;
    case KEY_OUTPUTS:
      // ag.data.outputs itself: any value, kept as is (a null means absent: the general path).
      if (v === null || !plainValue(v)) return false;
      addSlotted(f, k, v, OUTPUTS);
      return true;
    // Reference fields S7 keeps exactly as they are: an id already in lowercase dashed form, a valid
    // slug string, a version string (§3.5).
    case KEY_REF_ID: if (typeof v !== 'string' || normaliseUuid(v) !== v) return false; break;
    case KEY_REF_SLUG: if (typeof v !== 'string' || !SLUG.test(v)) return false; break;
    case KEY_REF_VERSION: if (typeof v !== 'string') return false; break;
    default: return scalarSlot(code, v, c);
  }
  addSlotted(f, k, v, REFERENCES);
  return true;
}

function addSlotted(f: SlottedKeys, k: string, v: AttrValue, s: number): void {
  const i = f.count++;
  f.keys[i] = k;
  f.values[i] = v;
  f.slots[i] = s;
  f.present |= 1 << s;
}

const CONFIGURATION = 'ag.meta.configuration';
const REFERENCES_DOT = 'ag.references.'.length;

/** `ag.references.<key>.<field>` with a known key, not an alias, and a field S7 keeps (§3.5). */
function referenceCode(k: string): number {
  const dot = k.indexOf('.', REFERENCES_DOT);
  if (dot < 0 || k.indexOf('.', dot + 1) >= 0) return KEY_REFUSED;
  if (!REFERENCE_KEYS.has(k.slice(REFERENCES_DOT, dot)) || aliasTarget(k) !== undefined) return KEY_REFUSED;
  switch (k.length - dot - 1) {
    case 2: return k.endsWith('.id') ? KEY_REF_ID : KEY_REFUSED;
    case 4: return k.endsWith('.slug') ? KEY_REF_SLUG : KEY_REFUSED;
    case 7: return k.endsWith('.version') ? KEY_REF_VERSION : KEY_REFUSED;
    default: return KEY_REFUSED;
  }
}

/** Empties `f` for the next span by its count, not by `length = 0`, which would free the arrays' storage
 *  only for the next span to allocate it again; past KEEP entries a huge span's arrays are let go. */
export function resetSlotted(f: SlottedKeys): SlottedKeys {
  if (f.count > KEEP) { f.keys = []; f.values = []; f.slots = []; }
  f.count = 0;
  f.present = 0;
  f.otherAt = undefined;
  return f;
}

const KEEP = 256;

/** The span's `references` list from the reference keys of a span that took its plan (what referenceList
 *  gives from S7's tree). */
export function slottedReferenceList(f: SlottedKeys): SpanReference[] | undefined {
  if ((f.present & (1 << REFERENCES)) === 0) return undefined;
  const list: SpanReference[] = [];
  const { keys, values, slots, order, ends } = f;
  // The references slot's keys in output order (within group 1, after the metric trees): the keys of
  // one entry are contiguous there (canonical order), so an entry is a run of keys.
  let j = ends[0];
  while (j < ends[1] && slots[order[j]] !== REFERENCES) j++;
  while (j < ends[1]) {
    const k = keys[order[j]];
    const dot = k.indexOf('.', REFERENCES_DOT);
    const name = k.slice(REFERENCES_DOT, dot);
    let id: string | undefined;
    let slug: string | undefined;
    let version: string | undefined;
    for (; j < ends[1]; j++) {
      const i = order[j];
      const kk = keys[i];
      if (kk.length <= dot || kk.charCodeAt(dot) !== 46 || !kk.startsWith(name, REFERENCES_DOT)) break;
      const field = kk.slice(dot + 1);
      if (field === 'id') id = values[i] as string;
      else if (field === 'slug') slug = values[i] as string;
      else version = values[i] as string;
    }
    const item: SpanReference = { attributes: referenceAttributes(name) };
    if (id !== undefined) item.id = id;
    if (slug !== undefined) item.slug = slug;
    if (version !== undefined) item.version = version;
    list.push(item);
  }
  return list;
}
