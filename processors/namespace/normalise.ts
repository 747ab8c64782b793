// S1-S7 for one span (ag-namespace.md §2): split off the `ag` keys, decode, rewrite aliases, map semantic
// conventions, parse data slots, unflatten and clean.
//
// Most spans need none of the rewriting: their `ag` keys already sit in their slots with values S7 keeps,
// in the order S9 writes, and the semantic-convention output fits the same way. For those the answer is
// the keys sorted by slot, and the span's plan (plan.ts) gives it without building a tree. A span the plan
// cannot take (an alias, a value S7 would change or quarantine, a key out of order) is normalised through
// the tree. `@ag.type=` values are decoded first (S2), so a span whose decoded keys fit still takes a plan.
import type { TreeMap } from '../../model/attributes/trie.ts';
import { unflattenOrdered } from '../../model/attributes/unflatten.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { AttrValue, Attributes } from '../../model/span.ts';
import { rewriteAliases } from './aliases.ts';
import { CanonicalOrder } from './canonical.ts';
import { cleanTree } from './clean.ts';
import { TYPED, decodeDataSlots, decodeTyped } from './decode.ts';
import { isAgKey } from './keys.ts';
import { emptyCleaned, emptySlotted, resetCleaned, type Cleaned, type SlottedKeys } from './layout.ts';
import { KEY_OTHER, KEY_TYPE_NODE, PlanCache, type Plan } from './plan.ts';
import { Quarantine } from './quarantine.ts';
import { FamilyMapper, applySemconv, familyMask } from './semconv/index.ts';
import { PlannedOutput } from './semconv/planned-output.ts';
import { KeyCodes, SPAN, TYPE_SPAN, placeCoded, resetSlotted } from './slots.ts';

/** Shared by every span with nothing quarantined; never written to. */
export const NO_QUARANTINE = new Quarantine();

interface Normalised {
  c: Cleaned;
  q: Quarantine;
}

/** What runPlan found. */
const TAKEN = 0;
const GENERAL = 1;
const TYPED_VALUE = 2;

function isTypedString(v: AttrValue): boolean {
  return typeof v === 'string' && v.charCodeAt(0) === 64 /* @ */ && v.startsWith(TYPED);
}

/**
 * S1-S7 with what it keeps from span to span: the plans, key codes, recent slot orders and the scratch
 * the plan path fills. One per processor; not re-entrant (the processor finishes a span before the next).
 */
export class Normaliser {
  private readonly plans = new PlanCache();
  private readonly codes = new KeyCodes();
  private readonly order = new CanonicalOrder();
  private readonly mapper = new FamilyMapper();
  private readonly slotted: SlottedKeys = emptySlotted();
  /** S4 output is decoded into this; anything quarantined there sends the span to the tree. */
  private readonly mappingQuarantine = new Quarantine();
  private readonly planned: Normalised = { c: emptyCleaned(), q: NO_QUARANTINE };

  /** A span that takes its plan gets scratch that the next call overwrites: the caller finishes the span first. */
  normalise(list: Attributes, semconv: boolean): Normalised {
    const c = resetCleaned(this.planned.c);
    let found = this.runPlan(this.plans.for(list, semconv, this.codes), list, c, false);
    if (found === TYPED_VALUE) {
      const decoded = decodeTyped(list);
      resetCleaned(c);
      if (decoded !== list) found = this.runPlan(this.plans.for(decoded, semconv, this.codes), decoded, c, true);
    }
    return found === TAKEN ? this.planned : this.tree(list, semconv);
  }

  /**
   * S1-S7 by the plan for a span with its keys: TAKEN with `c` filled (c.slotted the scratch SlottedKeys),
   * TYPED_VALUE for an `@ag.type=` value of an `ag` key (unless `decoded`: S2 already ran and left it), or
   * GENERAL when some key or value needs the tree.
   */
  private runPlan(plan: Plan, list: AttributeList, c: Cleaned, decoded: boolean): number {
    const f = resetSlotted(this.slotted);
    const { codes, keys } = plan;
    const values = list.valueArray;
    if (plan.refused) {
      if (!decoded) for (let i = 0; i < values.length; i++) if (codes[i] !== KEY_OTHER && isTypedString(values[i])) return TYPED_VALUE;
      return GENERAL;
    }
    for (let i = 0; i < values.length; i++) {
      const code = codes[i];
      if (code === KEY_OTHER) continue;
      const v = values[i];
      if (!decoded && isTypedString(v)) return TYPED_VALUE;
      if (code === KEY_TYPE_NODE) {
        if (!placeCoded(TYPE_SPAN, SPAN, typeof v === 'string' ? v.toLowerCase() : v, c, f)) return GENERAL;
      } else if (!placeCoded(code, keys[i], v, c, f)) return GENERAL;
    }
    if (plan.families.length > 0) {
      const mapped = this.mapper.map(plan.families, list, this.mappingQuarantine);
      if (this.mappingQuarantine.size > 0) { this.mappingQuarantine.clear(); return GENERAL; }
      if (mapped instanceof PlannedOutput) {
        for (let i = 0; i < mapped.size; i++) {
          const k = mapped.keys[i];
          if (!placeCoded(this.codes.of(k), k, mapped.values[i], c, f)) return GENERAL;
        }
      } else if (mapped !== undefined) {
        const { keyArray, valueArray } = mapped;
        for (let i = 0; i < keyArray.length; i++) {
          if (!placeCoded(this.codes.of(keyArray[i]), keyArray[i], valueArray[i], c, f)) return GENERAL;
        }
      }
    }
    if (!this.order.sort(f)) return GENERAL;
    f.otherAt = plan.others;
    f.otherKeys = keys;
    f.otherValues = values;
    c.slotted = f;
    return TAKEN;
  }

  /** S1-S7 through the unflattened `ag` tree: every case, quarantine included. */
  private tree(list: AttributeList, semconv: boolean): Normalised {
    const mask = semconv ? familyMask(list) : 0;
    let ag: Attributes | undefined;
    const { keyArray, valueArray } = list;
    for (let i = 0; i < keyArray.length; i++) {
      if (isAgKey(keyArray[i])) (ag ??= new AttributeList()).set(keyArray[i], valueArray[i]);
    }
    const c = emptyCleaned();
    if (ag === undefined && mask === 0) return { c, q: NO_QUARANTINE };
    ag ??= new AttributeList();
    const q = new Quarantine();
    ag = decodeTyped(ag);
    ag = rewriteAliases(ag, q);
    // S5 before S4 for the explicit keys (and inside S4 for each family's output): the quarantine order is
    // the same as one S5 pass over the whole map, and claims see the keys as the output spells them.
    ag = decodeDataSlots(ag, q);
    if (mask !== 0) ag = applySemconv(list, ag, mask, q, this.mapper);
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
    return { c, q };
  }
}
