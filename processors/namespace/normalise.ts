// S1-S7 for one span (ag-namespace.md §2): split off the `ag` keys, decode, rewrite aliases, map semantic
// conventions, parse data slots, then unflatten and clean. The last two build a tree only when some slot
// needs one (slots.ts): a span whose `ag` keys are already what S7 would write is bucketed by slot.
import { AttributeList, asList } from '../../model/attributes/list.ts';
import type { TreeMap } from '../../model/attributes/trie.ts';
import { unflattenOrdered } from '../../model/attributes/unflatten.ts';
import type { AttrValue, Attributes } from '../../model/span.ts';
import { isAlias, rewriteAliases } from './aliases.ts';
import { cleanTree, emptyCleaned, resetCleaned, type Cleaned } from './clean.ts';
import { decodeDataSlots, decodeTyped, isDataJsonSlot, isTyped } from './decode.ts';
import { isAgKey } from './keys.ts';
import { Quarantine } from './quarantine.ts';
import { SemconvMapper, everyKeyClaims, keyFamilies, type FamilyMatches } from './semconv/index.ts';
import { SlotPlacer } from './slots.ts';

export interface Normalised {
  c: Cleaned;
  q: Quarantine;
  /** Set when the tree slots were placed without a tree: they are written from here, not from `c`. */
  placed: SlotPlacer | undefined;
}

/**
 * What the steps decide from a span's keys alone, kept per key sequence: spans of one instrumentation
 * carry the same keys in the same order, span after span.
 */
interface KeyPlan {
  semconv: boolean;
  keys: string[];
  /** Positions of the `ag` keys (S1). */
  ag: Int32Array;
  /** Some `ag` key is an alias (S3 has work unless S2 changed the keys). */
  aliases: boolean;
  /** Some `ag` key is a slot S5 decodes (S5 may have work unless S2 or S3 changed the keys). */
  dataSlots: boolean;
  /** The slot codes of the `ag` keys (SlotPlacer.codesOf), for spans where S2-S5 keep them. */
  codes: Int8Array;
  /** The semantic-convention rows with a source among the keys, and those the explicit keys leave free. */
  matches: FamilyMatches | undefined;
  kept: FamilyMatches | undefined;
}

/** Key sequences kept; a new one replaces the oldest. Enough for the span kinds of a few instrumentations. */
const PLANS = 16;
/** Spans with more keys are not kept (a plan copies its keys). */
const PLAN_MAX_KEYS = 128;

/** One processor's normaliser: the key plans, the semantic-convention rows and the slot placer keep
 *  their memos here. */
export class Normaliser {
  private readonly semconv = new SemconvMapper();
  private readonly placer = new SlotPlacer();
  private readonly scratch: Normalised = { c: emptyCleaned(), q: new Quarantine(), placed: undefined };
  private readonly plans: KeyPlan[] = [];
  private nextPlan = 0;
  private last: KeyPlan | undefined;

  /**
   * S1-S7 into a result the next call overwrites (the caller finishes the span first): the Cleaned,
   * Quarantine and placed slots of every span are the same objects.
   */
  next(attrs: Attributes, semconv: boolean): Normalised {
    const w = this.scratch;
    resetCleaned(w.c);
    w.q.clear();
    w.placed = undefined;
    return this.run(attrs, semconv, w, true);
  }

  /** S1-S7 into a result of its own, every slot as a tree (propagate_metrics reads the token trees). */
  kept(attrs: Attributes, semconv: boolean): Normalised {
    return this.run(attrs, semconv, { c: emptyCleaned(), q: new Quarantine(), placed: undefined }, false);
  }

  private run(attrs: Attributes, semconv: boolean, w: Normalised, place: boolean): Normalised {
    // Receivers and the disk stream build lists; a Map (a test, a custom receiver) is copied into one.
    const list = asList(attrs);
    const plan = this.planFor(list, semconv);
    if (plan.ag.length === 0 && plan.matches === undefined) return w;
    const { keyArray, valueArray } = list;
    // The values say whether S2 has work and whether some key may claim nothing (a null).
    let typed = false;
    let nulls = false;
    for (let j = 0; j < plan.ag.length; j++) {
      const v = valueArray[plan.ag[j]];
      if (typeof v === 'string') { if (v.charCodeAt(0) === 64 /* @ */ && isTyped(v)) typed = true; }
      else if (v === null) nulls = true;
    }
    if (place && !typed && !plan.aliases && !plan.dataSlots && plan.matches === undefined) {
      // S2-S5 have no work: the `ag` keys are the span's own, placed where they stand.
      if (this.placer.placeAt(keyArray, valueArray, plan.ag, plan.codes, w.c)) {
        w.placed = this.placer;
        return w;
      }
      resetCleaned(w.c);
    }
    const explicit = new AttributeList();
    for (let j = 0; j < plan.ag.length; j++) explicit.append(keyArray[plan.ag[j]], valueArray[plan.ag[j]]);
    const q = w.q;
    let ag = typed ? decodeTyped(explicit) : explicit;
    if (plan.aliases || ag !== explicit) ag = rewriteAliases(ag, q);
    // S5 before S4 for the explicit keys (and inside S4 for each family's output): the quarantine order is
    // the same as one S5 pass over the whole map, and claims see the keys as the output spells them.
    if (plan.dataSlots || ag !== explicit) ag = decodeDataSlots(ag, q);
    if (plan.matches !== undefined) {
      const kept = ag === explicit && (!nulls || everyKeyClaims(ag));
      ag = this.semconv.apply(list, ag, kept ? plan.kept as FamilyMatches : plan.matches, kept, q);
    }
    if (place && q.size === 0) {
      if (this.placer.place(ag, w.c, ag === explicit ? plan.codes : undefined)) {
        w.placed = this.placer;
        return w;
      }
      resetCleaned(w.c);
    }
    cleanAsTree(ag, w.c, q);
    return w;
  }

  /** The plan for these keys: the last one used, a kept one, or a new one (kept when small enough). */
  private planFor(list: AttributeList, semconv: boolean): KeyPlan {
    const keys = list.keyArray;
    if (this.last !== undefined && sameKeys(this.last, keys, semconv)) return this.last;
    for (let i = 0; i < this.plans.length; i++) {
      if (sameKeys(this.plans[i], keys, semconv)) return (this.last = this.plans[i]);
    }
    const plan = this.makePlan(keys, semconv);
    if (keys.length <= PLAN_MAX_KEYS) {
      this.plans[this.nextPlan] = plan;
      this.nextPlan = (this.nextPlan + 1) % PLANS;
    }
    return (this.last = plan);
  }

  private makePlan(keys: string[], semconv: boolean): KeyPlan {
    let mask = 0;
    const ag: number[] = [];
    const agKeys: string[] = [];
    let aliases = false;
    let dataSlots = false;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (semconv) mask = keyFamilies(k, mask);
      if (!isAgKey(k)) continue;
      ag.push(i);
      agKeys.push(k);
      if (isAlias(k)) aliases = true;
      if (isDataJsonSlot(k)) dataSlots = true;
    }
    let matches: FamilyMatches | undefined;
    let kept: FamilyMatches | undefined;
    if (mask !== 0) {
      matches = this.semconv.match(keys, mask);
      if (matches.every((m) => m === undefined)) matches = undefined;
      else kept = this.semconv.keep(matches, agKeys);
    }
    const codes = this.placer.codesOf(agKeys);
    return { semconv, keys: keys.slice(), ag: Int32Array.from(ag), aliases, dataSlots, codes, matches, kept };
  }
}

function sameKeys(plan: KeyPlan, keys: readonly string[], semconv: boolean): boolean {
  const own = plan.keys;
  if (plan.semconv !== semconv || own.length !== keys.length) return false;
  for (let i = 0; i < own.length; i++) if (own[i] !== keys[i]) return false;
  return true;
}

/** S6 and S7 over the tree of the `ag` keys. */
function cleanAsTree(ag: AttributeList, c: Cleaned, q: Quarantine): void {
  // `ag` itself cannot hold a value in the layout; taken out first so it does not shadow every ag.* key.
  let invalid: AttrValue | undefined;
  if (ag.has('ag')) {
    invalid = ag.get('ag');
    ag.delete('ag');
  }
  const { tree, shadowed } = unflattenOrdered(ag);
  if (shadowed.length > 0) {
    const below: [string, AttrValue][] = new Array(shadowed.length);
    for (let i = 0; i < shadowed.length; i++) below[i] = [shadowed[i][0].slice(3), shadowed[i][1]];
    // Built with unflatten so it is canonical; a key shadowed again here is dropped.
    q.add(['_shadowed'], unflattenOrdered(below).tree);
  }
  const agTree = tree.get('ag');
  if (agTree instanceof Map) cleanTree(agTree as TreeMap, c, q);
  else if (agTree !== undefined) q.add(['_invalid'], agTree);
  if (invalid !== undefined && invalid !== null) q.add(['_invalid'], invalid);
}
