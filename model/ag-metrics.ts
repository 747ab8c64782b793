// The `ag.metrics` keys of a span's flat attributes and where each goes (in the slot order of ag-slots.ts),
// for the processors that add metrics after namespace laid the attributes out (cost) or sum them over a
// trace (namespace's propagate_metrics). A key added at its slot keeps a namespace output a fixed point:
// running namespace on it again changes nothing, key order included.
import { slotOf, slotNumber } from './ag-slots.ts';
import type { AttributeList } from './attributes/list.ts';

const PARTS = ['prompt', 'completion', 'total'] as const;
export const TOKENS_INCREMENTAL = 'ag.metrics.tokens.incremental';
export const TOKENS_CUMULATIVE = 'ag.metrics.tokens.cumulative';
export const COSTS_INCREMENTAL = 'ag.metrics.costs.incremental';
export const COSTS_CUMULATIVE = 'ag.metrics.costs.cumulative';
export const ERRORS_INCREMENTAL = 'ag.metrics.errors.incremental';
export const ERRORS_CUMULATIVE = 'ag.metrics.errors.cumulative';

/** A token or cost tree: its key, the prefix of the keys below it, and its triple's full keys, built once. */
export interface Triple {
  readonly tree: string;
  /** `<tree>.` */
  readonly below: string;
  /** `<tree>.prompt`, `.completion`, `.total`. */
  readonly keys: readonly string[];
}

function triple(tree: string): Triple {
  return { tree, below: `${tree}.`, keys: PARTS.map((p) => `${tree}.${p}`) };
}

export const TOKENS_INCREMENTAL_TRIPLE = triple(TOKENS_INCREMENTAL);
export const TOKENS_CUMULATIVE_TRIPLE = triple(TOKENS_CUMULATIVE);
export const COSTS_INCREMENTAL_TRIPLE = triple(COSTS_INCREMENTAL);
export const COSTS_CUMULATIVE_TRIPLE = triple(COSTS_CUMULATIVE);

/** The slots this module places keys in. */
export const Slot = {
  ERRORS_CUMULATIVE: slotNumber(ERRORS_CUMULATIVE), TOKENS_CUMULATIVE: slotNumber(TOKENS_CUMULATIVE),
  COSTS_INCREMENTAL: slotNumber(COSTS_INCREMENTAL), COSTS_CUMULATIVE: slotNumber(COSTS_CUMULATIVE),
} as const;

/** Where keys of `slot` go in a list laid out in slot order: after the last key of an earlier slot. */
export function slotPosition(list: AttributeList, slot: number): number {
  const keys = list.keyArray;
  for (let i = keys.length - 1; i >= 0; i--) if (slotOf(keys[i]) < slot) return i + 1;
  return 0;
}

/**
 * Writes `triple`'s keys with the values `prompt`, `completion`, `total` in place of every key of its
 * tree, at the first one's position, or at `slot` when the tree has none. One pass over the keys; when
 * the tree is exactly its triple, in order (a list this function or namespace laid out), the values are
 * overwritten where they are.
 */
export function replaceTriple(list: AttributeList, triple: Triple, slot: number, prompt: number, completion: number, total: number): void {
  const { tree, below, keys: own } = triple;
  const keys = list.keyArray;
  let first = -1;
  let count = 0;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (k.length >= tree.length && (k === tree || k.startsWith(below))) {
      if (first < 0) first = i;
      count++;
    }
  }
  if (count === 3 && keys[first] === own[0] && keys[first + 1] === own[1] && keys[first + 2] === own[2]) {
    list.replaceAt(first, prompt);
    list.replaceAt(first + 1, completion);
    list.replaceAt(first + 2, total);
    return;
  }
  if (first < 0) first = slotPosition(list, slot);
  else {
    for (let i = keys.length - 1; i >= first; i--) {
      const k = keys[i];
      if (k === tree || k.startsWith(below)) list.deleteAt(i);
    }
  }
  list.insert(first, own, [prompt, completion, total]);
}
