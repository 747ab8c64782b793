// S1-S7 for one span (ag-namespace.md §2): split off the `ag` keys, decode, rewrite aliases, map semantic
// conventions, parse data slots, then unflatten and clean. The last two build a tree only when some slot
// needs one (slots.ts): a span whose `ag` keys are already what S7 would write is bucketed by slot.
import { AttributeList, asList } from '../../pipeline/attributes/list.ts';
import type { TreeMap } from '../../pipeline/attributes/trie.ts';
import { unflattenOrdered } from '../../pipeline/attributes/unflatten.ts';
import type { AttrValue, Attributes } from '../../pipeline/span.ts';
import { rewriteAliases } from './aliases.ts';
import { cleanTree, emptyCleaned, resetCleaned, type Cleaned } from './clean.ts';
import { decodeDataSlots, decodeTyped } from './decode.ts';
import { isAgKey } from './keys.ts';
import { Quarantine } from './quarantine.ts';
import { SemconvMapper, keyFamilies } from './semconv/index.ts';
import { SlotPlacer } from './slots.ts';

export interface Normalised {
  c: Cleaned;
  q: Quarantine;
  /** Set when the tree slots were placed without a tree: they are written from here, not from `c`. */
  placed: SlotPlacer | undefined;
}

/** One processor's normaliser: the semantic-convention rows and the slot placer keep their memos here. */
export class Normaliser {
  private readonly semconv = new SemconvMapper();
  private readonly placer = new SlotPlacer();
  private readonly scratch: Normalised = { c: emptyCleaned(), q: new Quarantine(), placed: undefined };

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
    const { keyArray, valueArray } = list;
    let mask = 0;
    let ag: AttributeList | undefined;
    for (let i = 0; i < keyArray.length; i++) {
      const k = keyArray[i];
      if (semconv) mask = keyFamilies(k, mask);
      if (isAgKey(k)) (ag ??= new AttributeList()).append(k, valueArray[i]);
    }
    if (ag === undefined && mask === 0) return w;
    ag ??= new AttributeList();
    const q = w.q;
    ag = decodeTyped(ag);
    ag = rewriteAliases(ag, q);
    // S5 before S4 for the explicit keys (and inside S4 for each family's output): the quarantine order is
    // the same as one S5 pass over the whole map, and claims see the keys as the output spells them.
    ag = decodeDataSlots(ag, q);
    if (mask !== 0) ag = this.semconv.apply(list, ag, mask, q);
    if (place && q.size === 0) {
      if (this.placer.place(ag, w.c)) {
        w.placed = this.placer;
        return w;
      }
      resetCleaned(w.c);
    }
    cleanAsTree(ag, w.c, q);
    return w;
  }
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
