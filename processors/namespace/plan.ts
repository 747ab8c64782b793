// Plans, one per attribute key sequence. The spans of one instrumentation carry the same keys in the same
// order, and most of what S1-S7 decide depends on the keys alone: which keys are `ag` keys and which slot
// each lands in (keyCode), whether `ag.type.node` and `ag.type.span` meet, which semantic-convention
// families and rows can run and which of their targets the explicit keys claim. A plan holds those
// answers, so a span whose key sequence has one pays a key-by-key comparison and the checks of its values
// (Normaliser.runPlan), not the per-key lookups, prefix tests and row scans.
import type { AttributeList } from '../../model/attributes/list.ts';
import { ClaimList, isAgKey } from './keys.ts';
import type { FamilyPlan } from './semconv/rows.ts';
import { claimExplicit, keyFamilies, planFamilies } from './semconv/index.ts';
import { KEY_REFUSED, SPAN, type KeyCodes } from './slots.ts';

/** Codes of a plan beside keyCode's: a key outside `ag`, and `ag.type.node` (placed at ag.type.span). */
export const KEY_OTHER = -2;
export const KEY_TYPE_NODE = -3;
export const TYPE_NODE = 'ag.type.node';

export interface Plan {
  semconv: boolean;
  keys: readonly string[];
  /** Per key: keyCode, KEY_OTHER or KEY_TYPE_NODE. */
  codes: Int8Array;
  /** Some key needs S3 or S7's rewriting whatever its value: spans of this sequence take the general
   *  path (unless an `@ag.type=` value changes the keys, see Normaliser). */
  refused: boolean;
  /** The semantic-convention families with rows to run, highest first. */
  families: FamilyPlan[];
  /** Positions of the keys outside `ag`, in order (emit copies them from the span's values). */
  others: Int32Array;
}

/** Plans kept; a new key sequence replaces the oldest. Enough for the span kinds of a few instrumentations. */
const CACHE_SIZE = 32;
/** Spans with more keys get a plan that is used once and not kept (the cache must stay small). */
const CACHE_MAX_KEYS = 1024;

/** The plans of one Normaliser. */
export class PlanCache {
  private readonly plans: Plan[] = [];
  private nextReplaced = 0;
  private lastUsed: Plan | undefined;

  /** The plan for this key sequence, made and kept the first time the sequence is seen. */
  for(attrs: AttributeList, semconv: boolean, codes: KeyCodes): Plan {
    const last = this.lastUsed;
    if (last !== undefined && matches(last, attrs, semconv)) return last;
    const plans = this.plans;
    for (let i = 0; i < plans.length; i++) {
      if (plans[i] !== last && matches(plans[i], attrs, semconv)) return (this.lastUsed = plans[i]);
    }
    const plan = makePlan(attrs, semconv, codes);
    if (attrs.size <= CACHE_MAX_KEYS) {
      plans[this.nextReplaced] = plan;
      this.nextReplaced = (this.nextReplaced + 1) % CACHE_SIZE;
      this.lastUsed = plan;
    }
    return plan;
  }
}

function matches(plan: Plan, attrs: AttributeList, semconv: boolean): boolean {
  const keys = plan.keys;
  const spanKeys = attrs.keyArray;
  const n = keys.length;
  if (plan.semconv !== semconv || n !== spanKeys.length || (n > 0 && spanKeys[n - 1] !== keys[n - 1])) return false;
  for (let i = 0; i < n; i++) if (spanKeys[i] !== keys[i]) return false;
  return true;
}

function makePlan(attrs: AttributeList, semconv: boolean, keyCodes: KeyCodes): Plan {
  const n = attrs.size;
  const keys = attrs.keyArray.slice();
  const codes = new Int8Array(n);
  // A span that takes its plan has every explicit key claim whatever its value: a null is refused
  // outside free-form slots and is content inside them (claimExplicit), so the claims depend on the keys.
  const claims = new ClaimList();
  let mask = 0;
  let refused = false;
  let node = false;
  let span = false;
  let others = 0;
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    if (semconv) mask = keyFamilies(k, mask);
    if (!isAgKey(k)) { codes[i] = KEY_OTHER; others++; continue; }
    let placed = k;
    if (k === TYPE_NODE) { codes[i] = KEY_TYPE_NODE; node = true; placed = SPAN; }
    else {
      codes[i] = keyCodes.of(k);
      if (codes[i] === KEY_REFUSED) refused = true;
      if (k === SPAN) span = true;
    }
    if (semconv) claimExplicit(claims, placed, placed);
  }
  // Both: the explicit key wins and the alias is quarantined (S3), which only the general path does.
  if (node && span) refused = true;
  const families = !refused && mask !== 0 ? planFamilies(keys, claims, mask) : [];
  const otherAt = new Int32Array(others);
  for (let j = 0, o = 0; j < n; j++) if (codes[j] === KEY_OTHER) otherAt[o++] = j;
  return { semconv, keys, codes, refused, families, others: otherAt };
}
