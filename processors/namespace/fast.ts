// Fast path for S1-S7 and the `ag` half of S9 (ag-namespace.md §2, §3.6) when the `ag` keys are already in
// the form the full path would write them back: every key sits in a known slot with a valid leaf, nothing
// is quarantined or shadowed, no key would be regrouped or turned into an array by unflatten. Then the
// output is simply the keys bucketed by slot, each bucket in input order, and no trie or tree is built.
// Anything unusual returns false and the caller runs the full path from the start; the differential test
// (fast.test.ts) holds the two equal. Decision 0250. Spans whose key sequence repeats take a plan of these
// decisions instead (plan.ts, docs/performance.md, round 0310), which ends in the same finishFast.
import { flattenInto } from '../../model/attributes/flatten.ts';
import type { AttributeList } from '../../model/attributes/list.ts';
import { normaliseUuid } from '../../model/ids.ts';
import { isSpanType, REFERENCE_KEYS, type AttrValue, type Attributes, type SpanReference } from '../../model/span.ts';
import { aliasTarget } from './aliases.ts';
import type { Cleaned } from './clean.ts';
import { TYPED, TYPED_JSON, TYPED_NONE, isTyped } from './decode.ts';
import { ClaimList, NOT_JSON, isAgKey, tryJson } from './keys.ts';
import { Quarantine } from './quarantine.ts';
import { SLUG, referenceAttributes } from './references.ts';
import { regroup } from './regroup.ts';
import { claimExplicit, keyFamilies, mapFamilies } from './semconv/index.ts';
import { PlannedOutput } from './semconv/planned-output.ts';

/** Tree slots in output order (§3.6); scalar slots go straight into Cleaned. */
const PARAMETERS = 0;
const INPUTS = 1;
const OUTPUTS = 2;
const INTERNALS = 3;
const TOKENS_INC = 4;
const TOKENS_CUM = 5;
const COSTS_INC = 6;
const COSTS_CUM = 7;
const REFERENCES = 8;
const FLAGS = 9;
const TAGS = 10;
const META = 11;
const EXCEPTION = 12;
const SELECTOR = 13;
const UNSUPPORTED = 14;
const SLOT_COUNT = 15;

/** Slot roots without the trailing dot, by slot. */
const ROOTS = [
  'ag.data.parameters', 'ag.data.inputs', 'ag.data.outputs', 'ag.data.internals', 'ag.metrics.tokens.incremental',
  'ag.metrics.tokens.cumulative', 'ag.metrics.costs.incremental', 'ag.metrics.costs.cumulative', 'ag.references',
  'ag.flags', 'ag.tags', 'ag.meta', 'ag.exception', 'ag.selector', 'ag.unsupported',
];
const ROOT_LEN = ROOTS.map((r) => r.length);

/** How leaves of a slot are checked. */
const FREE = 0; // any flat value, null is content
const NUMBERS = 1; // number or bigint leaves (token/cost trees)
const FLAG_LEAVES = 2; // string or boolean leaves (flags/tags)
const STRINGS = 3; // one level of string members (selector)
const REFERENCE = 4; // <key>.<field>, each already in the form S7 writes
const KIND = [FREE, FREE, FREE, FREE, NUMBERS, NUMBERS, NUMBERS, NUMBERS, REFERENCE, FLAG_LEAVES, FLAG_LEAVES, FREE,
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

/** The `ag` keys of a span classified by the fast path: what emitFastGroup writes. */
export interface FastSlots {
  /** Entries [0, count) are this span's; the arrays are reused, so they may hold more. */
  count: number;
  keys: string[];
  values: AttrValue[];
  /** Tree slot of each key. */
  slots: number[];
  /** Bit s set when tree slot s holds a key. */
  present: number;
  /** Output order (finishFast): entry indexes by slot, each slot in input order; `ends` closes the three
   *  groups emit writes between the scalar slots (data, metric trees and references, the rest). */
  order: Int32Array;
  ends: Int32Array;
  /** Set by the plan path: positions of the keys outside `ag` in `otherKeys` (the plan's keys) and
   *  `otherValues` (the span's values), so emit copies them without looking each one up again. */
  otherAt: Int32Array | undefined;
  otherKeys: readonly string[];
  otherValues: readonly AttrValue[];
}

function startsAt(k: string, root: string, len: number): boolean {
  return k.length > len && k.charCodeAt(len) === 46 && k.startsWith(root);
}

/**
 * What the key alone says about an `ag` key on the fast path (keyCode): refused whatever its value, a
 * scalar slot (0-7, the SCALAR_KEYS index), `ag.data.outputs` itself, a reference field, or a tree slot
 * (KEY_TREE + slot). placeCoded then checks the value.
 */
export const KEY_REFUSED = -1;
const KEY_OUTPUTS = 8;
const KEY_REF_ID = 9;
const KEY_REF_SLUG = 10;
const KEY_REF_VERSION = 11;
const KEY_TREE = 16;

/** keyCode answers by key (it depends on the key only): keys repeat in every span of an instrumentation,
 *  and one lookup of an already hashed string costs less than the exact-key lookup and the chain of prefix
 *  tests. Bounded. */
const codeMemo = new Map<string, number>();
const CODE_MEMO_SIZE = 4096;
const CODE_MEMO_KEY_LENGTH = 128;

/** The code of an `ag` key (`ag` itself or `ag.*`). */
export function keyCode(k: string): number {
  let code = codeMemo.get(k);
  if (code !== undefined) return code;
  code = keyCodeOf(k);
  if (k.length <= CODE_MEMO_KEY_LENGTH) {
    if (codeMemo.size >= CODE_MEMO_SIZE) codeMemo.clear();
    codeMemo.set(k, code);
  }
  return code;
}

function keyCodeOf(k: string): number {
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
function plainValue(v: unknown): boolean {
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
    case NUMBERS: return typeof v === 'bigint' || (typeof v === 'number' && Number.isFinite(v));
    case FLAG_LEAVES: return typeof v === 'string' || typeof v === 'boolean';
    case STRINGS: return typeof v === 'string';
    case REFERENCE: return typeof v === 'string'; // reference keys have their own codes (placeCoded)
    default: return false;
  }
}

function isNumber(v: unknown): v is number | bigint {
  return typeof v === 'number' || typeof v === 'bigint';
}

/**
 * Scalar slot `which` (index in SCALAR_KEYS) set on `c` when its value is what S7 keeps unchanged;
 * false sends the span down the full path (invalid values are quarantined there).
 */
function scalarSlot(which: number, v: AttrValue, c: Cleaned): boolean {
  switch (which) {
    case 0: if (!isSpanType(v)) return false; c.typeSpan = v; return true;
    case 1:
      if (v === 'invocation' || v === 'annotation') { c.typeTrace = v; return true; }
      return v === 'unknown'; // counts as absent, nothing quarantined
    case 2: if (!isNumber(v)) return false; c.durationIncremental = v; return true;
    case 3: if (!isNumber(v)) return false; c.durationCumulative = v; return true;
    case 4: if (!isNumber(v)) return false; c.errorsIncremental = v; return true;
    case 5: if (!isNumber(v)) return false; c.errorsCumulative = v; return true;
    case 6: if (typeof v !== 'string') return false; c.sessionId = v; return true;
    case 7: if (typeof v !== 'string') return false; c.userId = v; return true;
    default: return false;
  }
}

// Scratch for the canonical-order check, reused across spans (the processor is synchronous).
const framePos: number[] = [];
const frameCount: number[] = [];
const frameSeenBase: number[] = [];
const seenKey: number[] = [];
const seenEnd: number[] = [];
/** Beyond this many named (non-index) children under one node the check gives up (it is quadratic). */
const MAX_NAMED_CHILDREN = 64;

function allDigits(k: string, a: number, b: number): boolean {
  if (a === b) return false;
  for (let i = a; i < b; i++) {
    const c = k.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function sameRange(x: string, y: string, a: number, b: number): boolean {
  for (let i = a; i < b; i++) if (x.charCodeAt(i) !== y.charCodeAt(i)) return false;
  return true;
}

/**
 * True when unflatten then flatten of this slot's keys (`bucket`: entry indexes, in input order or as
 * regroup.ts put them) gives back exactly these keys in this order: no key at or below another, the
 * keys under every node contiguous (first appearance order is this order), index children appearing as
 * 0, 1, 2, ... and never as the last segment (a dense run of scalars would become one array value) nor
 * right below the slot root (the slot would become an array). In typed slots any index segment is
 * refused: an array there is a bad leaf.
 */
function canonicalBucket(keys: string[], bucket: readonly number[], n: number, slot: number): boolean {
  const rootLen = ROOT_LEN[slot];
  const typed = KIND[slot] !== FREE;
  let prev = -1;
  let depth = 0;
  let seenLen = 0;
  for (let m = 0; m < n; m++) {
    const j = bucket[m];
    const k = keys[j];
    let from: number;
    if (k.length === rootLen) {
      // A value at the slot root itself (ag.data.outputs): fine alone, shadowing anything else.
      if (prev >= 0) return false;
      prev = j;
      depth = -1;
      continue;
    }
    if (prev < 0) {
      depth = 0;
      framePos[0] = rootLen;
      frameCount[0] = 0;
      frameSeenBase[0] = 0;
      seenLen = 0;
      from = rootLen;
    } else {
      if (depth < 0) return false; // a root value was seen before
      const p = keys[prev];
      const lim = p.length < k.length ? p.length : k.length;
      let c = rootLen + 1;
      while (c < lim && p.charCodeAt(c) === k.charCodeAt(c)) c++;
      // One key ending where the other continues with a dot: shadowing.
      if (c === p.length) { if (c === k.length || k.charCodeAt(c) === 46) return false; }
      else if (c === k.length && p.charCodeAt(c) === 46) return false;
      from = k.lastIndexOf('.', c - 1);
      while (depth >= 0 && framePos[depth] !== from) { seenLen = frameSeenBase[depth]; depth--; }
      if (depth < 0) return false;
    }
    // Walk the segments of k below the node ending at `from`.
    let d = depth;
    let a = from + 1;
    for (;;) {
      let b = k.indexOf('.', a);
      const last = b < 0;
      if (last) b = k.length;
      if (allDigits(k, a, b)) {
        if (typed || last || d === 0) return false;
        const len = b - a;
        if (len <= 10 && (len === 1 || k.charCodeAt(a) !== 48)) {
          // An index must come next in order, so a dense run reads back in this order.
          let n = 0;
          for (let i = a; i < b; i++) n = n * 10 + (k.charCodeAt(i) - 48);
          if (n !== frameCount[d]) return false;
          frameCount[d]++;
        } else if (!namedChild(keys, k, j, d, a, b, seenLen)) return false;
        else seenLen++;
      } else if (!namedChild(keys, k, j, d, a, b, seenLen)) return false;
      else seenLen++;
      if (last) break;
      d++;
      framePos[d] = b;
      frameCount[d] = 0;
      frameSeenBase[d] = seenLen;
      a = b + 1;
    }
    depth = d;
    prev = j;
  }
  return true;
}

/**
 * The order check and the output order depend on the key sequence only (a key's slot is a function of the
 * key), and spans from one instrumentation repeat the same sequence: the last few sequences that passed are
 * remembered with their output order. The keys are copies, as the FastSlots arrays are reused.
 */
interface Canonical {
  keys: string[];
  order: Int32Array;
  ends: Int32Array;
}
const RECENT = 8;
const recent: Canonical[] = [];
let recentNext = 0;

function knownCanonical(keys: string[], count: number): Canonical | undefined {
  for (let r = 0; r < recent.length; r++) {
    const e = recent[r].keys;
    if (e.length !== count) continue;
    let i = 0;
    while (i < count && e[i] === keys[i]) i++;
    if (i === count) return recent[r];
  }
  return undefined;
}

/** One slot's entry indexes, reused. */
const bucket: number[] = [];

/**
 * The output order of the slotted keys (each slot's keys as unflatten-then-flatten would write them), made
 * and remembered for this key sequence; undefined when some slot is not canonical even regrouped.
 */
function canonicalOrder(f: FastSlots): Canonical | undefined {
  const { keys, slots, count } = f;
  const order = new Int32Array(count);
  const ends = new Int32Array(3);
  let j = 0;
  for (let s = 0; s < SLOT_COUNT; s++) {
    if ((f.present & (1 << s)) !== 0) {
      let n = 0;
      for (let i = 0; i < count; i++) if (slots[i] === s) bucket[n++] = i;
      // In input order, else regrouped (regroup.ts); either way the check decides.
      if (!canonicalBucket(keys, bucket, n, s) && !(regroup(keys, bucket, n, ROOT_LEN[s]) && canonicalBucket(keys, bucket, n, s))) {
        return undefined;
      }
      for (let m = 0; m < n; m++) order[j++] = bucket[m];
    }
    if (s === INTERNALS) ends[0] = j;
    else if (s === REFERENCES) ends[1] = j;
  }
  ends[2] = j;
  const e: Canonical = { keys: keys.slice(0, count), order, ends };
  recent[recentNext] = e;
  recentNext = (recentNext + 1) % RECENT;
  return e;
}

/** Records a named child [a, b) of frame d, false when that child was seen before (it would regroup). */
function namedChild(keys: string[], k: string, j: number, d: number, a: number, b: number, seenLen: number): boolean {
  const base = frameSeenBase[d];
  if (seenLen - base >= MAX_NAMED_CHILDREN) return false;
  for (let s = base; s < seenLen; s++) {
    if (seenEnd[s] === b && sameRange(keys[seenKey[s]], k, a, b)) return false;
  }
  seenKey[seenLen] = j;
  seenEnd[seenLen] = b;
  frameCount[d]++;
  return true;
}

/** Places one `ag` key into `c` (scalar slots) or `f` (tree slots); false when the full path is needed. */
function place(k: string, v: AttrValue, c: Cleaned, f: FastSlots): boolean {
  return placeCoded(keyCode(k), k, v, c, f);
}

/** place with the key's code already known (the plan path keeps codes per key sequence, plan.ts). */
export function placeCoded(code: number, k: string, v: AttrValue, c: Cleaned, f: FastSlots): boolean {
  if (code >= KEY_TREE) {
    const s = code - KEY_TREE;
    if (!leafOk(KIND[s], v)) return false;
    addSlotted(f, k, v, s);
    return true;
  }
  switch (code) {
    case KEY_REFUSED: return false;
    case KEY_OUTPUTS:
      // ag.data.outputs itself: any value, kept as is (a null means absent: full path).
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

function addSlotted(f: FastSlots, k: string, v: AttrValue, s: number): void {
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

/** The span's `references` list from the fast path's reference keys (what referenceList gives from S7). */
export function fastReferenceList(f: FastSlots): SpanReference[] | undefined {
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

/** The FastSlots of the span being processed: scratch, read by emit before the next span is classified. */
const slotsScratch: FastSlots = {
  count: 0, keys: [], values: [], slots: [], present: 0, order: new Int32Array(0), ends: new Int32Array(3),
  otherAt: undefined, otherKeys: [], otherValues: [],
};

/** Beyond this many entries the scratch arrays are dropped rather than kept for the next span. */
const SCRATCH_KEEP = 256;

/**
 * Empties the scratch by its count, not by `length = 0`: that frees the arrays' backing stores, and
 * the first push of the next span allocated them again (~450 B/span, measured). Past SCRATCH_KEEP a
 * huge span's arrays are let go so they do not stay pinned.
 */
function resetSlots(f: FastSlots): FastSlots {
  if (f.count > SCRATCH_KEEP) { f.keys = []; f.values = []; f.slots = []; }
  f.count = 0;
  f.present = 0;
  f.otherAt = undefined;
  return f;
}

/** The explicit keys' claims (S4) of the span being classified, reused (a list per span was ~140 B). */
const claimsScratch = new ClaimList();

/** S4 output is decoded into this; anything quarantined there sends the span down the full path. */
export const mappingQuarantine = new Quarantine();

/** The scratch FastSlots emptied for a new span. */
export function beginSlots(): FastSlots {
  return resetSlots(slotsScratch);
}

/**
 * The end of the fast path, shared with the plan path (plan.ts): S4's output (decoded into
 * mappingQuarantine) placed like the explicit keys, then the canonical-order check over every slotted key.
 */
export function finishFast(mapped: Attributes | PlannedOutput | undefined, c: Cleaned, f: FastSlots): boolean {
  if (mappingQuarantine.size > 0) { mappingQuarantine.clear(); return false; }
  if (mapped instanceof PlannedOutput) {
    for (let i = 0; i < mapped.size; i++) if (!place(mapped.keys[i], mapped.values[i], c, f)) return false;
  } else if (mapped !== undefined) {
    // keys() and get: destructuring the entries allocated a pair per mapped key (~65 B/span measured).
    for (const k of mapped.keys()) if (!place(k, mapped.get(k) as AttrValue, c, f)) return false;
  }
  const known = knownCanonical(f.keys, f.count) ?? canonicalOrder(f);
  if (known === undefined) return false;
  f.order = known.order;
  f.ends = known.ends;
  c.fast = f;
  return true;
}

/**
 * S1-S7 for a span whose `ag` keys need no rewriting: no `@ag.type=` value (S2), no alias (S3), no
 * string in a JSON data slot (S5), `ag` itself absent, every key in a known slot with a value S7 keeps
 * as is, and each slot already in canonical order. The semantic-convention output (S4, when `semconv`
 * applies and some family has a trigger key) must pass the same checks. Fills `c` (scalar slots; c.fast, a
 * scratch FastSlots valid until the next call, for the tree slots) and returns true; false (with `c`
 * possibly half-filled: the caller starts a fresh one) when the full path is needed.
 */
export function normaliseFast(attrs: AttributeList, semconv: boolean, c: Cleaned): boolean {
  const f = beginSlots();
  // The family mask is found in the same pass; claims are gathered whenever mapping may apply.
  let claims: ClaimList | undefined;
  if (semconv) { claims = claimsScratch; claims.clear(); }
  let mask = 0;
  typeSpanSeen = false;
  typeNodeSeen = false;
  const keys = attrs.keyArray;
  const values = attrs.valueArray;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (semconv) mask = keyFamilies(k, mask);
    if (!isAgKey(k)) continue;
    const v = values[i];
    if (typeof v === 'string' && v.charCodeAt(0) === 64 /* @ */ && v.startsWith(TYPED)) {
      if (!placeTyped(k, v, c, f, claims)) return false;
    } else if (!placeExplicit(k, v, c, f, claims)) return false;
  }
  return finishFast(mask !== 0 ? mapFamilies(attrs, claims as ClaimList, mask, mappingQuarantine) : undefined, c, f);
}

/** S3 for the one alias the fast path takes: `ag.type.node` when no explicit `ag.type.span` exists. */
let typeSpanSeen = false;
let typeNodeSeen = false;
export const TYPE_NODE = 'ag.type.node';

/** One explicit key after S2: S3 (`ag.type.node`; any other alias is refused by place), then placed and claimed. */
function placeExplicit(k: string, v: AttrValue, c: Cleaned, f: FastSlots, claims: ClaimList | undefined): boolean {
  if (k === TYPE_NODE) {
    // The explicit key wins over the alias, which is then quarantined: full path.
    if (typeSpanSeen) return false;
    typeNodeSeen = true;
    k = SPAN;
    if (typeof v === 'string') v = v.toLowerCase();
  } else if (k === SPAN) {
    if (typeNodeSeen) return false;
    typeSpanSeen = true;
  }
  if (!place(k, v, c, f)) return false;
  if (claims !== undefined) claimExplicit(claims, k, v);
  return true;
}

const expanded: Attributes = new Map();

/**
 * S2 for one `@ag.type=` value: `none:` is null, `json:` parsed and flattened in place, anything else (or
 * JSON that does not parse) stays as it is. A decoded string that is itself prefixed would need a second
 * S2 round: full path. (A decoded key equal to another key lands twice in the buckets, which the order
 * check refuses, or, for a scalar slot, lets the later value win as Map.set does.)
 */
function placeTyped(k: string, v: string, c: Cleaned, f: FastSlots, claims: ClaimList | undefined): boolean {
  if (v === TYPED_NONE) return placeExplicit(k, null, c, f, claims);
  if (!v.startsWith(TYPED_JSON)) return placeExplicit(k, v, c, f, claims);
  const parsed = tryJson(v.slice(TYPED_JSON.length));
  if (parsed === NOT_JSON) return placeExplicit(k, v, c, f, claims);
  expanded.clear();
  flattenInto(parsed, k, expanded);
  for (const [kk, vv] of expanded) {
    if (isTyped(vv) || !placeExplicit(kk, vv, c, f, claims)) { expanded.clear(); return false; }
  }
  expanded.clear();
  return true;
}

/**
 * Writes slot group `g` (finishFast's order: 0 data, 1 metric trees and references, 2 the rest). The
 * keys are unique: canonicalBucket refuses a key equal to, above or below another, and no slot key
 * equals a scalar slot's.
 */
export function emitFastGroup(f: FastSlots, g: number, out: AttributeList): void {
  const { order, keys, values, ends } = f;
  for (let j = g === 0 ? 0 : ends[g - 1]; j < ends[g]; j++) {
    const i = order[j];
    out.append(keys[i], values[i]);
  }
}
