// Cumulative costs again, once this processor added incremental ones. namespace's `propagate_metrics`
// summed the batch's trees before any cost was computed (cost runs after namespace, which must run first
// to put every SDK's model and tokens in one place), so for each trace where a cost was added the
// `costs.cumulative` sums are redone here by the same rule (model/trace-tree.ts, ag-namespace.md §4.3):
// own incremental cost (missing = 0) plus the children's cumulative, written when one of the three is
// non-zero, replacing what was there.
import type { AttributeList } from '../../model/attributes/list.ts';
import type { Span } from '../../model/span.ts';
import { DETACHED, forEachTraceTree } from '../../model/trace-tree.ts';
import { COSTS_CUMULATIVE, CUMULATIVE_KEYS, INCREMENTAL_KEYS, insertTriple, slotEnd } from './slots.ts';

const [PROMPT, COMPLETION, TOTAL] = INCREMENTAL_KEYS;

function num(v: unknown): number {
  return typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : 0;
}

/** `spans[i]` got a computed cost when `added[i]` is 1. */
export function propagateCosts(spans: Span[], added: Uint8Array): void {
  forEachTraceTree(spans, (members, parentPos) => {
    if (!members.some((i) => added[i] === 1)) return;
    const n = members.length;
    const sums = new Float64Array(n * 3);
    for (let p = n - 1; p >= 0; p--) {
      if (parentPos[p] === DETACHED) continue;
      const span = spans[members[p]];
      const at = p * 3;
      const list = span.attributes;
      sums[at] += num(list.get(PROMPT));
      sums[at + 1] += num(list.get(COMPLETION));
      sums[at + 2] += num(list.get(TOTAL));
      if (sums[at] !== 0 || sums[at + 1] !== 0 || sums[at + 2] !== 0) writeCumulative(list, [sums[at], sums[at + 1], sums[at + 2]]);
      const parent = parentPos[p];
      if (parent >= 0) for (let j = 0; j < 3; j++) sums[parent * 3 + j] += sums[at + j];
    }
  });
}

/** Replaces every `costs.cumulative` key with the three sums, where the first of them was (or in its slot). */
function writeCumulative(list: AttributeList, values: number[]): void {
  const keys = list.keyArray;
  let at = -1;
  for (let i = keys.length - 1; i >= 0; i--) {
    const k = keys[i];
    if (k === COSTS_CUMULATIVE || k.startsWith(`${COSTS_CUMULATIVE}.`)) {
      list.delete(k);
      at = i;
    }
  }
  insertTriple(list, at >= 0 ? at : slotEnd(list, false), CUMULATIVE_KEYS, values);
}
