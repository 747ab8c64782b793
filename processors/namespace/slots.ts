// The tree slots of the `ag` layout (ag-namespace.md §3.1, §3.6) as the plan path sees them: what an `ag`
// key's name alone says about it (keyCode), and whether its value is what S7 keeps unchanged (placeCoded).
// A span whose keys and values all pass needs none of S2-S7's rewriting: its keys, sorted by slot, are
// the output.
import {
  COSTS_CUMULATIVE, COSTS_INCREMENTAL, ERRORS_CUMULATIVE, ERRORS_INCREMENTAL, TOKENS_CUMULATIVE, TOKENS_INCREMENTAL,
} from '../../model/ag-metrics.ts';
import { AG_SLOT_COUNT, AG_SLOTS, slotNumber, treeSlotBelow } from '../../model/ag-slots.ts';
import { normaliseUuid } from '../../model/ids.ts';
import { isSpanType, REFERENCE_KEYS, type AttrValue, type SpanReference } from '../../model/span.ts';
import { aliasTarget } from './aliases.ts';
import { isFiniteNumber } from './keys.ts';
import type { Cleaned, SlottedKeys } from './layout.ts';
import { SLUG, referenceAttributes } from './references.ts';

/** Slots by their number in model/ag-slots.ts, which is their output order (§3.6). The scalar slots'
 *  values go straight into Cleaned; a tree slot's keys into SlottedKeys. */
export const SPAN = 'ag.type.span';
export const TYPE_SPAN = slotNumber(SPAN);
export const TYPE_TRACE = slotNumber('ag.type.trace');
export const PARAMETERS = slotNumber('ag.data.parameters');
export const INPUTS = slotNumber('ag.data.inputs');
const OUTPUTS_KEY = 'ag.data.outputs';
export const OUTPUTS = slotNumber(OUTPUTS_KEY);
export const INTERNALS = slotNumber('ag.data.internals');
export const DURATION_INC = slotNumber('ag.metrics.duration.incremental');
export const DURATION_CUM = slotNumber('ag.metrics.duration.cumulative');
export const ERRORS_INC = slotNumber(ERRORS_INCREMENTAL);
export const ERRORS_CUM = slotNumber(ERRORS_CUMULATIVE);
export const TOKENS_INC = slotNumber(TOKENS_INCREMENTAL);
export const TOKENS_CUM = slotNumber(TOKENS_CUMULATIVE);
export const COSTS_INC = slotNumber(COSTS_INCREMENTAL);
export const COSTS_CUM = slotNumber(COSTS_CUMULATIVE);
export const REFERENCES = slotNumber('ag.references');
export const SESSION = slotNumber('ag.session.id');
export const USER = slotNumber('ag.user.id');
export const FLAGS = slotNumber('ag.flags');
export const TAGS = slotNumber('ag.tags');
export const META = slotNumber('ag.meta');
export const EXCEPTION = slotNumber('ag.exception');
export const SELECTOR = slotNumber('ag.selector');
export const UNSUPPORTED = slotNumber('ag.unsupported');
export const SLOT_COUNT = AG_SLOT_COUNT;
/** Slot key lengths (a tree slot's root), by slot. */
export const ROOT_LEN = AG_SLOTS.map((slot) => slot.key.length);

/**
 * The runs of tree slots that emit writes between scalar slots, numbered from 0 (SlottedKeys.ends):
 * GROUP[s] is tree slot s's run (-1 for a scalar slot), CLOSES_GROUP[s] whether s is its run's last slot.
 */
export const GROUP: number[] = [];
export const CLOSES_GROUP: boolean[] = [];
for (let s = 0, g = -1; s < SLOT_COUNT; s++) {
  const { tree } = AG_SLOTS[s];
  if (tree && (s === 0 || !AG_SLOTS[s - 1].tree)) g++;
  GROUP[s] = tree ? g : -1;
  CLOSES_GROUP[s] = tree && (s === SLOT_COUNT - 1 || !AG_SLOTS[s + 1].tree);
}
export const GROUP_COUNT = Math.max(...GROUP) + 1;

/** How leaves of a slot are checked. */
export const FREE = 0; // any flat value, null is content
const NUMBERS = 1; // number or bigint leaves (token/cost trees)
const FLAG_LEAVES = 2; // string or boolean leaves (flags/tags)
const STRINGS = 3; // one level of string members (selector)
const REFERENCE = 4; // <key>.<field>, each already in the form S7 writes
/** By slot (FREE for the scalar slots, whose values scalarSlot checks). */
export const KIND: number[] = AG_SLOTS.map(() => FREE);
KIND[TOKENS_INC] = KIND[TOKENS_CUM] = KIND[COSTS_INC] = KIND[COSTS_CUM] = NUMBERS;
KIND[REFERENCES] = REFERENCE;
KIND[FLAGS] = KIND[TAGS] = FLAG_LEAVES;
KIND[SELECTOR] = STRINGS;

/** Exact keys of the scalar slots, by slot. */
const SCALAR_KEYS = new Map<string, number>();
for (let s = 0; s < SLOT_COUNT; s++) if (!AG_SLOTS[s].tree) SCALAR_KEYS.set(AG_SLOTS[s].key, s);

/**
 * What the key alone says about an `ag` key (keyCode): refused whatever its value, a scalar slot (its
 * number), `ag.data.outputs` itself, a reference field, or a tree slot (KEY_TREE + slot). placeCoded then
 * checks the value. Codes fit an Int8Array (plan.ts).
 */
export const KEY_REFUSED = -1;
const KEY_OUTPUTS = SLOT_COUNT;
const KEY_REF_ID = SLOT_COUNT + 1;
const KEY_REF_SLUG = SLOT_COUNT + 2;
const KEY_REF_VERSION = SLOT_COUNT + 3;
const KEY_TREE = SLOT_COUNT + 4;

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
  if (k === OUTPUTS_KEY) return KEY_OUTPUTS;
  const exact = SCALAR_KEYS.get(k);
  if (exact !== undefined) return exact;
  const s = treeSlotBelow(k);
  if (s < 0) return KEY_REFUSED;
  // One level of members only below the selector.
  if (KIND[s] === STRINGS && k.indexOf('.', ROOT_LEN[s] + 1) >= 0) return KEY_REFUSED;
  // ag.meta.configuration is an alias (S3); so are some reference fields; the other aliases are outside
  // every tree slot.
  if (s === META && k.startsWith(CONFIGURATION) && (k.length === CONFIGURATION.length || k.charCodeAt(CONFIGURATION.length) === 46)) return KEY_REFUSED;
  if (s === REFERENCES) return referenceCode(k);
  return KEY_TREE + s;
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
 * Scalar slot `which` (its number) set on `c` when its value is what S7 keeps unchanged; false sends the
 * span down the general path (invalid values are quarantined there).
 */
function scalarSlot(which: number, v: AttrValue, c: Cleaned): boolean {
  switch (which) {
    case TYPE_SPAN: if (!isSpanType(v)) return false; c.typeSpan = v; return true;
    case TYPE_TRACE:
      if (v === 'invocation' || v === 'annotation') { c.typeTrace = v; return true; }
      return v === 'unknown'; // counts as absent, nothing quarantined
    case DURATION_INC: if (!isFiniteNumber(v)) return false; c.durationIncremental = v; return true;
    case DURATION_CUM: if (!isFiniteNumber(v)) return false; c.durationCumulative = v; return true;
    case ERRORS_INC: if (!isFiniteNumber(v)) return false; c.errorsIncremental = v; return true;
    case ERRORS_CUM: if (!isFiniteNumber(v)) return false; c.errorsCumulative = v; return true;
    case SESSION: if (typeof v !== 'string') return false; c.sessionId = v; return true;
    case USER: if (typeof v !== 'string') return false; c.userId = v; return true;
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
  // The references slot's keys in output order (within its group): the keys of one entry are contiguous
  // there (canonical order), so an entry is a run of keys.
  const g = GROUP[REFERENCES];
  const end = ends[g];
  let j = g === 0 ? 0 : ends[g - 1];
  while (j < end && slots[order[j]] !== REFERENCES) j++;
  while (j < end) {
    const k = keys[order[j]];
    const dot = k.indexOf('.', REFERENCES_DOT);
    const name = k.slice(REFERENCES_DOT, dot);
    let id: string | undefined;
    let slug: string | undefined;
    let version: string | undefined;
    for (; j < end; j++) {
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
