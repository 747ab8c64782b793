// S1-S7 for one span (ag-namespace.md §2): split off the `ag` keys, decode, rewrite aliases, map semantic
// conventions, parse data slots, unflatten and clean. A span with no `ag` key and no semantic-convention
// work skips all of it.
import { asList } from '../../model/attributes/list.ts';
import type { TreeMap } from '../../model/attributes/trie.ts';
import { unflattenOrdered } from '../../model/attributes/unflatten.ts';
import type { AttrValue, Attributes } from '../../model/span.ts';
import { rewriteAliases } from './aliases.ts';
import { cleanTree, emptyCleaned, resetCleaned, type Cleaned } from './clean.ts';
import { decodeDataSlots, decodeTyped } from './decode.ts';
import { normaliseFast } from './fast.ts';
import { isAgKey } from './keys.ts';
import { PLAN_FULL, PLAN_TAKEN, normalisePlanned, planFor } from './plan.ts';
import { Quarantine } from './quarantine.ts';
import { applySemconv, familyMask } from './semconv/index.ts';

/** Shared by every span with nothing quarantined; never written to. */
export const NO_QUARANTINE = new Quarantine();

/**
 * The fast path (fast.ts) is on unless a test turns it off to compare both paths; it never changes the
 * output, only how it is computed. `hits` counts the spans that took it (tests check both paths ran).
 * `plans` turns its per-key-sequence plans (plan.ts) on and off; `planned` counts the spans they took.
 */
export const fastPath = { enabled: true, hits: 0, plans: true, planned: 0 };

export interface Normalised {
  c: Cleaned;
  q: Quarantine;
}

/** What the fast path returns: one object reused for every span (see normalise). */
const fastResult: Normalised = { c: emptyCleaned(), q: NO_QUARANTINE };

/**
 * `fast` false keeps the full path (propagate_metrics reads the token/cost trees the fast path does not build).
 * With `fast`, the result may be scratch that the next call overwrites: the caller finishes the span first
 * (the processor does; this saves the Cleaned, FastSlots and result objects of every span).
 */
export function normalise(attrs: Attributes, semconv: boolean, fast = false): Normalised {
  // Receivers and the disk stream build lists; a Map (a test, a custom receiver) is copied into one.
  const list = asList(attrs);
  if (fast && fastPath.enabled) {
    // Already canonical and nothing to rewrite or quarantine (the common case): no trie, no tree.
    const c = resetCleaned(fastResult.c);
    const plan = fastPath.plans ? planFor(list, semconv) : undefined;
    let general = true;
    if (plan !== undefined && !plan.refused) {
      const r = normalisePlanned(plan, list, c);
      if (r === PLAN_TAKEN) {
        fastPath.hits++;
        fastPath.planned++;
        return fastResult;
      }
      general = r !== PLAN_FULL;
      if (general) resetCleaned(c);
    }
    if (general && normaliseFast(list, semconv, c)) {
      fastPath.hits++;
      return fastResult;
    }
  }
  const mask = semconv ? familyMask(list) : 0;
  let ag: Attributes | undefined;
  const { keyArray, valueArray } = list;
  for (let i = 0; i < keyArray.length; i++) {
    if (isAgKey(keyArray[i])) (ag ??= new Map()).set(keyArray[i], valueArray[i]);
  }
  const c = emptyCleaned();
  if (ag === undefined && mask === 0) return { c, q: NO_QUARANTINE };
  ag ??= new Map();
  const q = new Quarantine();
  ag = decodeTyped(ag);
  ag = rewriteAliases(ag, q);
  // S5 before S4 for the explicit keys (and inside S4 for each family's output): the quarantine order is
  // the same as one S5 pass over the whole map, and claims see the keys as the output spells them.
  ag = decodeDataSlots(ag, q);
  if (mask !== 0) ag = applySemconv(list, ag, mask, q);
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
