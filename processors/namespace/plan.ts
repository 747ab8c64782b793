// Plans for the fast path (fast.ts), one per attribute key sequence. The spans of one instrumentation
// carry the same keys in the same order, and most of what the fast path decides depends on the keys
// alone: which keys are `ag` keys and where each lands (keyCode), whether `ag.type.node` and
// `ag.type.span` meet, the family mask, the explicit claims and so which semantic-convention rows can
// run. A plan holds those answers, so a span whose key sequence has one pays a key-by-key comparison and
// the value checks (placeCoded), not the per-key lookups, prefix tests and row scans. Decision 0310.
//
// A plan never widens the fast path: it takes a span only when normaliseFast would (same checks, same
// order, the same mapping rows), and any doubt (an `@ag.type=` value, a refused key) goes back to
// normaliseFast or the full path. plan.test.ts holds the three paths equal.
import type { AttributeList } from '../../model/attributes/list.ts';
import type { Cleaned } from './clean.ts';
import { TYPED } from './decode.ts';
import { KEY_REFUSED, SPAN, TYPE_NODE, beginSlots, finishFast, keyCode, mappingQuarantine, placeCoded } from './fast.ts';
import { ClaimList, isAgKey } from './keys.ts';
import type { FamilyPlan } from './semconv/rows.ts';
import { claimExplicit, keyFamilies, mapPlanned, planFamilies } from './semconv/index.ts';

/** Codes of a plan beside keyCode's: a key outside `ag`, and `ag.type.node` (placed at ag.type.span). */
const KEY_OTHER = -2;
const KEY_TYPE_NODE = -3;

export interface Plan {
  semconv: boolean;
  keys: readonly string[];
  /** Per key: keyCode, KEY_OTHER or KEY_TYPE_NODE. */
  codes: Int8Array;
  /** Some key is refused whatever its value (normaliseFast may still take the span: `@ag.type=` values
   *  can turn a refused key into good ones). */
  refused: boolean;
  /** The semantic-convention families with rows to run, highest first. */
  families: FamilyPlan[];
  /** Positions of the keys outside `ag`, in order (emit copies them from the span's values). */
  others: Int32Array;
}

/** Spans with more keys are not planned (a plan keeps its keys; the cache must stay small). */
const PLAN_MAX_KEYS = 64;
/** Plans kept; a new key sequence replaces the oldest. Enough for the span kinds of a few instrumentations. */
const PLAN_CACHE_SIZE = 16;
const plans: Plan[] = [];
let nextReplaced = 0;
let lastUsed: Plan | undefined;

function matches(plan: { semconv: boolean; keys: readonly string[] }, attrs: AttributeList, semconv: boolean): boolean {
  const keys = plan.keys;
  const spanKeys = attrs.keyArray;
  if (plan.semconv !== semconv || keys.length !== spanKeys.length) return false;
  for (let i = 0; i < keys.length; i++) if (spanKeys[i] !== keys[i]) return false;
  return true;
}

/**
 * Key sequences seen once recently without a plan. A sequence is planned the second time it shows up:
 * spans whose keys never repeat would otherwise pay for a plan each and use none (measured: +20-25%
 * on such spans), and would push the useful plans out of the cache.
 */
const SEEN_SIZE = 4;
const seen: { semconv: boolean; keys: string[]; planned: boolean }[] = [];
let nextSeen = 0;

/**
 * The plan for this key sequence, made and cached the second time the sequence is seen; undefined when
 * there is none (yet), or for spans too large to plan.
 */
export function planFor(attrs: AttributeList, semconv: boolean): Plan | undefined {
  if (lastUsed !== undefined && matches(lastUsed, attrs, semconv)) return lastUsed;
  if (attrs.size > PLAN_MAX_KEYS) return undefined;
  for (let i = 0; i < plans.length; i++) {
    if (plans[i] !== lastUsed && matches(plans[i], attrs, semconv)) return (lastUsed = plans[i]);
  }
  let again = false;
  for (let i = 0; i < seen.length && !again; i++) {
    if (!seen[i].planned && matches(seen[i], attrs, semconv)) {
      again = true;
      seen[i].planned = true;
    }
  }
  if (!again) {
    seen[nextSeen] = { semconv, keys: attrs.keyArray.slice(), planned: false };
    nextSeen = (nextSeen + 1) % SEEN_SIZE;
    return undefined;
  }
  const plan = makePlan(attrs, semconv);
  plans[nextReplaced] = plan;
  nextReplaced = (nextReplaced + 1) % PLAN_CACHE_SIZE;
  return (lastUsed = plan);
}

/** Forgets every plan (tests: a cold cache). */
export function clearPlans(): void {
  plans.length = 0;
  nextReplaced = 0;
  lastUsed = undefined;
  seen.length = 0;
  nextSeen = 0;
}

function makePlan(attrs: AttributeList, semconv: boolean): Plan {
  const n = attrs.size;
  const keys = attrs.keyArray.slice();
  const codes = new Int8Array(n);
  // On the fast path every explicit key claims whatever its value: a null is refused outside free-form
  // slots and is content inside them (claimExplicit), so the claims depend on the keys only.
  const claims = new ClaimList();
  let mask = 0;
  let refused = false;
  let node = false;
  let span = false;
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    if (semconv) mask = keyFamilies(k, mask);
    if (!isAgKey(k)) { codes[i] = KEY_OTHER; continue; }
    let placed = k;
    if (k === TYPE_NODE) { codes[i] = KEY_TYPE_NODE; node = true; placed = SPAN; }
    else {
      codes[i] = keyCode(k);
      if (codes[i] === KEY_REFUSED) refused = true;
      if (k === SPAN) span = true;
    }
    if (semconv) claimExplicit(claims, placed, placed);
  }
  // Both: the explicit key wins and the alias is quarantined (full path), unless an `@ag.type=` value
  // removes one of them, which only normaliseFast handles.
  if (node && span) refused = true;
  const families = !refused && mask !== 0 ? planFamilies(keys, claims, mask) : [];
  let o = 0;
  for (let j = 0; j < n; j++) if (codes[j] === KEY_OTHER) o++;
  const others = new Int32Array(o);
  o = 0;
  for (let j = 0; j < n; j++) if (codes[j] === KEY_OTHER) others[o++] = j;
  return { semconv, keys, codes, refused, families, others };
}

/** normalisePlanned's answers. */
export const PLAN_TAKEN = 0;
export const PLAN_FULL = 1;
export const PLAN_GENERAL = 2;

/**
 * normaliseFast for a span whose keys are `plan.keys` (planFor matched them; the plan not refused):
 * PLAN_TAKEN with `c` filled as normaliseFast fills it; PLAN_FULL when normaliseFast would refuse the
 * span too (a value check failed, the mapping quarantined something, the order is not canonical);
 * PLAN_GENERAL for an `@ag.type=` value (S2 may change the keys: normaliseFast decides, on a fresh `c`).
 */
export function normalisePlanned(plan: Plan, attrs: AttributeList, c: Cleaned): number {
  const f = beginSlots();
  const { codes, keys } = plan;
  const values = attrs.valueArray;
  for (let i = 0; i < values.length; i++) {
    const code = codes[i];
    const v = values[i];
    if (code !== KEY_OTHER) {
      if (typeof v === 'string' && v.charCodeAt(0) === 64 /* @ */ && v.startsWith(TYPED)) return PLAN_GENERAL;
      if (code === KEY_TYPE_NODE) {
        if (!placeCoded(keyCode(SPAN), SPAN, typeof v === 'string' ? v.toLowerCase() : v, c, f)) return PLAN_FULL;
      } else if (!placeCoded(code, keys[i], v, c, f)) return PLAN_FULL;
    }
  }
  const mapped = plan.families.length > 0 ? mapPlanned(plan.families, attrs, values, mappingQuarantine) : undefined;
  if (!finishFast(mapped, c, f)) return PLAN_FULL;
  f.otherAt = plan.others;
  f.otherKeys = plan.keys;
  f.otherValues = values;
  return PLAN_TAKEN;
}
