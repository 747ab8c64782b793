// The `ag.metrics` keys of a span's flat attributes and where each goes (ag-namespace.md §3.6 orders the
// `ag` slots `type`, `data`, `metrics.duration`, `metrics.errors`, `metrics.tokens`,
// `metrics.costs.incremental`, `metrics.costs.cumulative`, then the rest), for the processors that add
// metrics after namespace laid the attributes out (cost) or sum them over a trace (namespace's
// propagate_metrics). A key added at its slot keeps a namespace output a fixed point: running namespace
// on it again changes nothing, key order included.
import type { AttributeList } from './attributes/list.ts';

export const PARTS = ['prompt', 'completion', 'total'] as const;
export const TOKENS_INCREMENTAL = 'ag.metrics.tokens.incremental';
export const TOKENS_CUMULATIVE = 'ag.metrics.tokens.cumulative';
export const COSTS_INCREMENTAL = 'ag.metrics.costs.incremental';
export const COSTS_CUMULATIVE = 'ag.metrics.costs.cumulative';
export const ERRORS_INCREMENTAL = 'ag.metrics.errors.incremental';
export const ERRORS_CUMULATIVE = 'ag.metrics.errors.cumulative';

/** `<tree>.prompt`, `.completion`, `.total`: the full keys of a token or cost tree's triple, built once. */
export function tripleKeys(tree: string): readonly string[] {
  return PARTS.map((p) => `${tree}.${p}`);
}

/** The slots this module places keys in, in output order. */
export const Slot = {
  ERRORS_CUMULATIVE: 4, TOKENS_CUMULATIVE: 6, COSTS_INCREMENTAL: 7, COSTS_CUMULATIVE: 8,
} as const;
type Slot = (typeof Slot)[keyof typeof Slot];
/** Any key after the metric slots (references, identity, flags... and every key outside `ag`). */
const AFTER = 9;

/** The output-order rank of `key`'s slot, up to the metric slots. */
function rank(key: string): number {
  if (key.charCodeAt(0) !== 97 /* a */ || !key.startsWith('ag.')) return AFTER;
  if (key.startsWith('ag.type.')) return 0;
  if (key.startsWith('ag.data.') || key === 'ag.data') return 1;
  if (!key.startsWith('ag.metrics.')) return AFTER;
  if (key.startsWith('ag.metrics.duration.')) return 2;
  if (key === ERRORS_INCREMENTAL) return 3;
  if (key === ERRORS_CUMULATIVE) return 4;
  if (key.startsWith(TOKENS_INCREMENTAL)) return 5;
  if (key.startsWith(TOKENS_CUMULATIVE)) return 6;
  if (key.startsWith(COSTS_INCREMENTAL)) return 7;
  if (key.startsWith(COSTS_CUMULATIVE)) return 8;
  return AFTER;
}

/** Where keys of `slot` go in a list laid out in slot order: after the last key of an earlier slot. */
export function slotPosition(list: AttributeList, slot: Slot): number {
  const keys = list.keyArray;
  for (let i = keys.length - 1; i >= 0; i--) if (rank(keys[i]) < slot) return i + 1;
  return 0;
}

/**
 * Writes the triple `keys` (tripleKeys of `tree`) with `values` in place of every key of `tree`, at the
 * first one's position, or at the tree's slot when it has none.
 */
export function replaceTriple(list: AttributeList, tree: string, slot: Slot, keys: readonly string[], values: readonly number[]): void {
  const below = `${tree}.`;
  const present = list.keyArray;
  let at = -1;
  for (let i = present.length - 1; i >= 0; i--) {
    if (present[i] === tree || present[i].startsWith(below)) {
      list.delete(present[i]);
      at = i;
    }
  }
  list.insert(at >= 0 ? at : slotPosition(list, slot), keys, values);
}
