// Where the cost keys go in a span's flat attributes: ag-namespace.md §3.6 orders the `ag` slots
// `type`, `data`, `metrics.duration`, `metrics.errors`, `metrics.tokens`, `metrics.costs.incremental`,
// `metrics.costs.cumulative`, then the rest. Keys added in their slot keep a namespace output a fixed point
// (running namespace on it again changes nothing, key order included).
import type { AttributeList } from '../../model/attributes/list.ts';
import type { AttrValue } from '../../model/span.ts';

export const COSTS_INCREMENTAL = 'ag.metrics.costs.incremental';
export const COSTS_CUMULATIVE = 'ag.metrics.costs.cumulative';
export const PARTS = ['prompt', 'completion', 'total'] as const;
/** The full keys, built once rather than per span. */
export const INCREMENTAL_KEYS = PARTS.map((p) => `${COSTS_INCREMENTAL}.${p}`);
export const CUMULATIVE_KEYS = PARTS.map((p) => `${COSTS_CUMULATIVE}.${p}`);

/** True for a key of a slot that comes before `metrics.costs.cumulative` (or is it, when `through`). */
function before(key: string, throughCumulative: boolean): boolean {
  if (!key.startsWith('ag.')) return false;
  if (key.startsWith('ag.metrics.')) return throughCumulative || !key.startsWith(COSTS_CUMULATIVE);
  return key.startsWith('ag.type.') || key.startsWith('ag.data.');
}

/** The position after the last key of the slots before `metrics.costs.cumulative` (or through it). */
export function slotEnd(list: AttributeList, throughCumulative: boolean): number {
  const keys = list.keyArray;
  for (let i = keys.length - 1; i >= 0; i--) if (before(keys[i], throughCumulative)) return i + 1;
  return 0;
}

/** Writes the three keys (INCREMENTAL_KEYS or CUMULATIVE_KEYS) at `at`, in their order. */
export function insertTriple(list: AttributeList, at: number, keys: readonly string[], values: readonly AttrValue[]): void {
  list.insert(at, keys, values);
}
