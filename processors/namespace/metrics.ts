// Computed metrics (ag-namespace.md §4.3): duration and error count per span, and the optional
// cumulative propagation of tokens, costs and errors within each trace of the batch.
import {
  COSTS_CUMULATIVE_TRIPLE, COSTS_INCREMENTAL, COSTS_INCREMENTAL_TRIPLE, ERRORS_CUMULATIVE, ERRORS_INCREMENTAL, replaceTriple, Slot,
  slotPosition, TOKENS_CUMULATIVE_TRIPLE, TOKENS_INCREMENTAL, TOKENS_INCREMENTAL_TRIPLE,
} from '../../model/ag-metrics.ts';
import type { AttributeList } from '../../model/attributes/list.ts';
import type { Uint64ToNumber } from '../../model/byte-order.ts';
import type { Span } from '../../model/span.ts';
import { DETACHED, forEachTraceTree } from '../../model/trace-tree.ts';
import type { Cleaned } from './layout.ts';

const MAX_U64 = 0xffff_ffff_ffff_ffffn;

/**
 * end - start as a double, the same as `Number(end - start)` for end > start. When both are in
 * [0, 2^64) the difference goes through `toNumber` (the caller's), which builds no heap BigInt per span.
 */
export function lengthNs(start: bigint, end: bigint, toNumber: Uint64ToNumber): number {
  if (start < 0n || end > MAX_U64) return Number(end - start);
  return toNumber.of(end - start);
}

/** Duration in ms as an exact double (no rounding) when the span has positive length; error count when it has events. */
export function computeSpanMetrics(span: Span, c: Cleaned, toNumber: Uint64ToNumber): void {
  if (span.endNs > span.startNs) c.durationCumulative = lengthNs(span.startNs, span.endNs, toNumber) / 1e6;
  const events = span.events;
  if (events !== undefined && events.length > 0) {
    let errors = 0;
    for (let i = 0; i < events.length; i++) if (events[i].name === 'exception') errors++;
    c.errorsIncremental = errors;
  }
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : 0;
}

const TOKENS_INC = TOKENS_INCREMENTAL_TRIPLE.keys;
const COSTS_INC = COSTS_INCREMENTAL_TRIPLE.keys;
const ERRORS_CUMULATIVE_KEY = [ERRORS_CUMULATIVE];

/** Per span of a trace: tokens prompt/completion/total, costs prompt/completion/total, errors. */
const WIDTH = 7;

/** Adds the span's own incremental metrics to its sums at `at`: one pass over its keys. */
function addOwn(list: AttributeList, sums: Float64Array, at: number): void {
  const keys = list.keyArray;
  const values = list.valueArray;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (k.length < 29 || k.charCodeAt(3) !== 109 /* m */ || !k.startsWith('ag.metrics.')) continue;
    let j = -1;
    if (k === ERRORS_INCREMENTAL) j = 6;
    else if (k.startsWith(TOKENS_INCREMENTAL)) j = TOKENS_INC.indexOf(k);
    else if (k.startsWith(COSTS_INCREMENTAL)) {
      const c = COSTS_INC.indexOf(k);
      if (c >= 0) j = 3 + c;
    }
    if (j >= 0) sums[at + j] += num(values[i]);
  }
}

/**
 * `propagate_metrics` (Agenta's rule, ag-namespace.md §4.3), once per batch after every processor that
 * adds metrics (namespace, cost): per trace, over the tree of model/trace-tree.ts, bottom-up, each span's
 * cumulative tokens, costs and errors are its own incremental values (missing = 0) plus its children's
 * cumulative ones, written in their slots when non-zero (replacing the client's); spans that cannot be
 * attached keep their client values.
 */
export function sumCumulativeMetrics(spans: Span[]): void {
  forEachTraceTree(spans, (members, parentPos) => {
    const n = members.length;
    const sums = new Float64Array(n * WIDTH);
    for (let p = n - 1; p >= 0; p--) {
      if (parentPos[p] === DETACHED) continue;
      const list = spans[members[p]].attributes;
      const at = p * WIDTH;
      addOwn(list, sums, at);
      // In slot order, so each position is found in a list already laid out.
      if (sums[at + 6] !== 0) {
        const errors = list.indexOf(ERRORS_CUMULATIVE);
        if (errors >= 0) list.replaceAt(errors, sums[at + 6]);
        else list.insert(slotPosition(list, Slot.ERRORS_CUMULATIVE), ERRORS_CUMULATIVE_KEY, [sums[at + 6]]);
      }
      if (sums[at] !== 0 || sums[at + 1] !== 0 || sums[at + 2] !== 0) {
        replaceTriple(list, TOKENS_CUMULATIVE_TRIPLE, Slot.TOKENS_CUMULATIVE, sums[at], sums[at + 1], sums[at + 2]);
      }
      if (sums[at + 3] !== 0 || sums[at + 4] !== 0 || sums[at + 5] !== 0) {
        replaceTriple(list, COSTS_CUMULATIVE_TRIPLE, Slot.COSTS_CUMULATIVE, sums[at + 3], sums[at + 4], sums[at + 5]);
      }
      const parent = parentPos[p];
      if (parent >= 0) for (let j = 0; j < WIDTH; j++) sums[parent * WIDTH + j] += sums[at + j];
    }
  });
}
