// Computed metrics (ag-namespace.md §4.3): duration and error count per span, and the optional
// cumulative propagation of tokens, costs and errors within each trace of the batch.
import type { TreeMap } from '../../model/attributes/trie.ts';
import { uint64ToNumber } from '../../model/byte-order.ts';
import type { Span } from '../../model/span.ts';
import { DETACHED, forEachTraceTree } from '../../model/trace-tree.ts';
import type { Cleaned } from './layout.ts';

const MAX_U64 = 0xffff_ffff_ffff_ffffn;

/**
 * end - start as a double, the same as `Number(end - start)` for end > start. When both are in
 * [0, 2^64) the difference goes through uint64ToNumber, which builds no heap BigInt per span.
 */
export function lengthNs(start: bigint, end: bigint): number {
  if (start < 0n || end > MAX_U64) return Number(end - start);
  return uint64ToNumber(end - start);
}

/** Duration in ms as an exact double (no rounding) when the span has positive length; error count when it has events. */
export function computeSpanMetrics(span: Span, c: Cleaned): void {
  if (span.endNs > span.startNs) c.durationCumulative = lengthNs(span.startNs, span.endNs) / 1e6;
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

const PARTS = ['prompt', 'completion', 'total'] as const;

/** prompt/completion/total sums as a Map, or undefined when all three are zero. */
function triple(sums: Float64Array, at: number): TreeMap | undefined {
  if (sums[at] === 0 && sums[at + 1] === 0 && sums[at + 2] === 0) return undefined;
  return new Map([[PARTS[0], sums[at]], [PARTS[1], sums[at + 1]], [PARTS[2], sums[at + 2]]]);
}

/**
 * Agenta's rule, per trace in the batch: spans ordered by start time (stable), a span attached under its
 * parent only when the parent is attached and came earlier, roots are spans without a parent; spans that
 * cannot be attached keep their client values. Bottom-up sums replace client values when non-zero.
 */
export function propagateMetrics(spans: Span[], cleaned: Cleaned[]): void {
  forEachTraceTree(spans, (members, parentPos) => {
    const n = members.length;
    // Per position: tokens prompt/completion/total, costs prompt/completion/total, errors.
    const sums = new Float64Array(n * 7);
    for (let p = n - 1; p >= 0; p--) {
      if (parentPos[p] === DETACHED) continue;
      const c = cleaned[members[p]];
      const at = p * 7;
      for (let j = 0; j < 3; j++) {
        sums[at + j] += num(c.tokensIncremental?.get(PARTS[j]));
        sums[at + 3 + j] += num(c.costsIncremental?.get(PARTS[j]));
      }
      sums[at + 6] += num(c.errorsIncremental);
      const tokens = triple(sums, at);
      if (tokens !== undefined) c.tokensCumulative = tokens;
      const costs = triple(sums, at + 3);
      if (costs !== undefined) c.costsCumulative = costs;
      if (sums[at + 6] !== 0) c.errorsCumulative = sums[at + 6];
      const parent = parentPos[p];
      if (parent >= 0) for (let j = 0; j < 7; j++) sums[parent * 7 + j] += sums[at + j];
    }
  });
}
