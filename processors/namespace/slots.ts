// S6-S7 without a tree for the slots that need none (ag-namespace.md §1.3, §3.1, §3.6). When every `ag` key
// left after S2-S5 sits in a known slot with a value S7 keeps as it is, and each slot's keys are already
// in the order unflatten-then-flatten gives them, that round trip is the identity: the output is the keys
// bucketed by slot, and no trie or tree is built. Otherwise the caller builds the tree (normalise.ts).
import type { AttributeList } from '../../model/attributes/list.ts';
import { normaliseUuid } from '../../model/ids.ts';
import { REFERENCE_KEYS, isSpanType, type AttrValue, type SpanReference } from '../../model/span.ts';
import type { Cleaned } from './clean.ts';
import { SLUG, referenceAttributes } from './references.ts';
import { regroup } from './regroup.ts';

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
const SCALAR_KEYS = new Map<string, number>([
  ['ag.type.span', 0], ['ag.type.trace', 1], ['ag.metrics.duration.incremental', 2],
  ['ag.metrics.duration.cumulative', 3], ['ag.metrics.errors.incremental', 4], ['ag.metrics.errors.cumulative', 5],
  ['ag.session.id', 6], ['ag.user.id', 7], ['ag.data.outputs', 8],
]);

/**
 * What the key alone says about an `ag` key (keyCodeOf): needs the tree whatever its value, a scalar slot
 * (0-7, the SCALAR_KEYS index), `ag.data.outputs` itself, a reference field, or a tree slot (KEY_TREE +
 * slot). placeCoded then checks the value.
 */
const KEY_TREE_NEEDED = -1;
const KEY_OUTPUTS = 8;
const KEY_REF_ID = 9;
const KEY_REF_SLUG = 10;
const KEY_REF_VERSION = 11;
const KEY_TREE = 16;

/** The key codes kept per processor: bounded, and only for keys up to this length. */
const CODE_MEMO_SIZE = 4096;
const CODE_MEMO_KEY_LENGTH = 128;
/** Output orders kept per processor, by slotted key sequence. */
const RECENT = 8;
/** Beyond this many named (non-index) children under one node the check gives up (it is quadratic). */
const MAX_NAMED_CHILDREN = 64;
/** Beyond this many entries the scratch arrays are dropped rather than kept for the next span. */
const SCRATCH_KEEP = 256;
const REFERENCES_DOT = 'ag.references.'.length;

function startsAt(k: string, root: string, len: number): boolean {
  return k.length > len && k.charCodeAt(len) === 46 && k.startsWith(root);
}

function keyCodeOf(k: string): number {
  const exact = SCALAR_KEYS.get(k);
  if (exact !== undefined) return exact; // ag.data.outputs is 8 = KEY_OUTPUTS
  const s = treeSlotOf(k);
  if (s < 0) return KEY_TREE_NEEDED;
  // One level of members only below the selector.
  if (KIND[s] === STRINGS && k.indexOf('.', ROOT_LEN[s] + 1) >= 0) return KEY_TREE_NEEDED;
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

/**
 * `ag.references.<key>.<field>` with a known key and a field S7 keeps (§3.5). Aliases among them were
 * rewritten at S3.
 */
function referenceCode(k: string): number {
  const dot = k.indexOf('.', REFERENCES_DOT);
  if (dot < 0 || k.indexOf('.', dot + 1) >= 0) return KEY_TREE_NEEDED;
  if (!REFERENCE_KEYS.has(k.slice(REFERENCES_DOT, dot))) return KEY_TREE_NEEDED;
  switch (k.length - dot - 1) {
    case 2: return k.endsWith('.id') ? KEY_REF_ID : KEY_TREE_NEEDED;
    case 4: return k.endsWith('.slug') ? KEY_REF_SLUG : KEY_TREE_NEEDED;
    case 7: return k.endsWith('.version') ? KEY_REF_VERSION : KEY_TREE_NEEDED;
    default: return KEY_TREE_NEEDED;
  }
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

/** Scalar slot `which` (index in SCALAR_KEYS) set on `c` when its value is what S7 keeps unchanged. */
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

/** An output order remembered for one sequence of slotted keys. */
interface Canonical {
  keys: string[];
  order: Int32Array;
  ends: Int32Array;
}

/**
 * The slotted `ag` keys of the span being processed and their output order. One per processor: its
 * memos (key codes, recent output orders) and scratch serve span after span; what `place` fills is read
 * (emitGroup, references) before the next span is placed.
 */
export class SlotPlacer {
  /** Entries [0, count) are this span's; the arrays are reused, so they may hold more. */
  private count = 0;
  private keys: string[] = [];
  private values: AttrValue[] = [];
  /** Tree slot of each key. */
  private slots: number[] = [];
  /** Bit s set when tree slot s holds a key. */
  private present = 0;
  /** Output order: entry indexes by slot; `ends` closes the three groups emit writes between the scalar
   *  slots (data, metric trees and references, the rest). */
  private order: Int32Array = new Int32Array(0);
  private ends: Int32Array = new Int32Array(3);

  /** keyCodeOf answers by key: keys repeat in every span of an instrumentation, and one lookup of an
   *  already hashed string costs less than the exact-key lookup and the chain of prefix tests. */
  private readonly codes = new Map<string, number>();
  /**
   * The order check and the output order depend on the slotted key sequence only, and spans from one
   * instrumentation repeat the same sequence: the last few that passed are remembered with their order.
   */
  private readonly recent: Canonical[] = [];
  private recentNext = 0;

  // Scratch of the canonical-order check.
  private readonly bucket: number[] = [];
  private readonly framePos: number[] = [];
  private readonly frameCount: number[] = [];
  private readonly frameSeenBase: number[] = [];
  private readonly seenKey: number[] = [];
  private readonly seenEnd: number[] = [];

  /** The codes of these keys, for a caller that keeps them per key sequence (see place). */
  codesOf(keys: readonly string[]): Int8Array {
    return Int8Array.from(keys, keyCodeOf);
  }

  /**
   * Places the `ag` keys left after S2-S5 (unique, in order): scalar slots into `c`, tree slots here.
   * True when no slot needs its tree; false (with `c` possibly half-filled) when the tree must be built.
   * `codes`: the codes (codesOf) of the first keys, when the caller has them.
   */
  place(ag: AttributeList, c: Cleaned, codes: Int8Array | undefined): boolean {
    this.begin();
    const keys = ag.keyArray;
    const values = ag.valueArray;
    let i = 0;
    if (codes !== undefined) {
      for (; i < codes.length; i++) if (!this.placeCoded(codes[i], keys[i], values[i], c)) return false;
    }
    for (; i < keys.length; i++) if (!this.placeCoded(this.codeOf(keys[i]), keys[i], values[i], c)) return false;
    return this.finish();
  }

  /** place for `ag` keys that are the span's own, unchanged: those at positions `at`, with their codes. */
  placeAt(keys: readonly string[], values: readonly AttrValue[], at: Int32Array, codes: Int8Array, c: Cleaned): boolean {
    this.begin();
    for (let i = 0; i < at.length; i++) if (!this.placeCoded(codes[i], keys[at[i]], values[at[i]], c)) return false;
    return this.finish();
  }

  private begin(): void {
    if (this.count > SCRATCH_KEEP) { this.keys = []; this.values = []; this.slots = []; }
    this.count = 0;
    this.present = 0;
  }

  private finish(): boolean {
    const known = this.knownCanonical() ?? this.canonicalOrder();
    if (known === undefined) return false;
    this.order = known.order;
    this.ends = known.ends;
    return true;
  }

  private codeOf(k: string): number {
    let code = this.codes.get(k);
    if (code !== undefined) return code;
    code = keyCodeOf(k);
    if (k.length <= CODE_MEMO_KEY_LENGTH) {
      if (this.codes.size >= CODE_MEMO_SIZE) this.codes.clear();
      this.codes.set(k, code);
    }
    return code;
  }

  private placeCoded(code: number, k: string, v: AttrValue, c: Cleaned): boolean {
    if (code >= KEY_TREE) {
      const s = code - KEY_TREE;
      if (!leafOk(KIND[s], v)) return false;
      this.add(k, v, s);
      return true;
    }
    switch (code) {
      case KEY_TREE_NEEDED: return false;
      case KEY_OUTPUTS:
        // ag.data.outputs itself: any value, kept as is (a null means absent).
        if (v === null || !plainValue(v)) return false;
        this.add(k, v, OUTPUTS);
        return true;
      // Reference fields S7 keeps exactly as they are: an id already in lowercase dashed form, a valid
      // slug string, a version string (§3.5).
      case KEY_REF_ID: if (typeof v !== 'string' || normaliseUuid(v) !== v) return false; break;
      case KEY_REF_SLUG: if (typeof v !== 'string' || !SLUG.test(v)) return false; break;
      case KEY_REF_VERSION: if (typeof v !== 'string') return false; break;
      default: return scalarSlot(code, v, c);
    }
    this.add(k, v, REFERENCES);
    return true;
  }

  private add(k: string, v: AttrValue, s: number): void {
    const i = this.count++;
    this.keys[i] = k;
    this.values[i] = v;
    this.slots[i] = s;
    this.present |= 1 << s;
  }

  private knownCanonical(): Canonical | undefined {
    const { keys, count, recent } = this;
    for (let r = 0; r < recent.length; r++) {
      const e = recent[r].keys;
      if (e.length !== count) continue;
      let i = 0;
      while (i < count && e[i] === keys[i]) i++;
      if (i === count) return recent[r];
    }
    return undefined;
  }

  /**
   * The output order of the slotted keys (each slot's keys as unflatten-then-flatten would write them), made
   * and remembered for this key sequence; undefined when some slot is not canonical even regrouped.
   */
  private canonicalOrder(): Canonical | undefined {
    const { keys, slots, count, bucket } = this;
    const order = new Int32Array(count);
    const ends = new Int32Array(3);
    let j = 0;
    for (let s = 0; s < SLOT_COUNT; s++) {
      if ((this.present & (1 << s)) !== 0) {
        let n = 0;
        for (let i = 0; i < count; i++) if (slots[i] === s) bucket[n++] = i;
        // In input order, else regrouped (regroup.ts); either way the check decides.
        if (!this.canonicalBucket(n, s) && !(regroup(keys, bucket, n, ROOT_LEN[s]) && this.canonicalBucket(n, s))) {
          return undefined;
        }
        for (let m = 0; m < n; m++) order[j++] = bucket[m];
      }
      if (s === INTERNALS) ends[0] = j;
      else if (s === REFERENCES) ends[1] = j;
    }
    ends[2] = j;
    const e: Canonical = { keys: keys.slice(0, count), order, ends };
    this.recent[this.recentNext] = e;
    this.recentNext = (this.recentNext + 1) % RECENT;
    return e;
  }

  /**
   * True when unflatten then flatten of this slot's keys (`bucket[0, n)`: entry indexes, in input order
   * or as regroup.ts put them) gives back exactly these keys in this order: no key at or below another,
   * the keys under every node contiguous (first appearance order is this order), index children appearing
   * as 0, 1, 2, ... and never as the last segment (a dense run of scalars would become one array value)
   * nor right below the slot root (the slot would become an array). In typed slots any index segment is
   * refused: an array there is a bad leaf.
   */
  private canonicalBucket(n: number, slot: number): boolean {
    const { keys, bucket, framePos, frameCount, frameSeenBase } = this;
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
            let idx = 0;
            for (let i = a; i < b; i++) idx = idx * 10 + (k.charCodeAt(i) - 48);
            if (idx !== frameCount[d]) return false;
            frameCount[d]++;
          } else if (!this.namedChild(k, j, d, a, b, seenLen)) return false;
          else seenLen++;
        } else if (!this.namedChild(k, j, d, a, b, seenLen)) return false;
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

  /** Records a named child [a, b) of frame d, false when that child was seen before (it would regroup). */
  private namedChild(k: string, j: number, d: number, a: number, b: number, seenLen: number): boolean {
    const { keys, seenKey, seenEnd } = this;
    const base = this.frameSeenBase[d];
    if (seenLen - base >= MAX_NAMED_CHILDREN) return false;
    for (let s = base; s < seenLen; s++) {
      if (seenEnd[s] === b && sameRange(keys[seenKey[s]], k, a, b)) return false;
    }
    seenKey[seenLen] = j;
    seenEnd[seenLen] = b;
    this.frameCount[d]++;
    return true;
  }

  /**
   * Writes slot group `g` of the placed span (0 data, 1 metric trees and references, 2 the rest). The keys
   * are unique: the order check refuses a key equal to, above or below another, and no slot key equals a
   * scalar slot's.
   */
  emitGroup(g: number, out: AttributeList): void {
    const { order, keys, values, ends } = this;
    for (let j = g === 0 ? 0 : ends[g - 1]; j < ends[g]; j++) {
      const i = order[j];
      out.append(keys[i], values[i]);
    }
  }

  /** The span's `references` list from the placed reference keys (what referenceList gives from S7). */
  referenceList(): SpanReference[] | undefined {
    if ((this.present & (1 << REFERENCES)) === 0) return undefined;
    const list: SpanReference[] = [];
    const { keys, values, slots, order, ends } = this;
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
}
