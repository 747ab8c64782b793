// Agenta's rule for the metric trees of one batch (ag-namespace.md §4.3): which spans of a trace are
// attached to which parent, for namespace's propagate_metrics, which sums the metrics of every processor
// (namespace's own, cost's) from children into parents once per batch.
import type { Span } from './span.ts';

/** In `parentPos`: the span is a root (no parent id). */
export const ROOT = -1;
/** In `parentPos`: the span could not be attached (its parent is not in the batch or came later). */
export const DETACHED = -2;

/**
 * Per trace of the batch: `members` are the trace's span indices ordered by start time (stable), and
 * `parentPos[p]` is the position in `members` of the parent of `members[p]`, or ROOT, or DETACHED. A span
 * is attached under its parent only when the parent is attached and came earlier. A parent's position is
 * always lower than its children's, so walking positions from the last to the first is bottom-up.
 */
export function forEachTraceTree(spans: readonly Span[], visit: (members: number[], parentPos: Int32Array) => void): void {
  const traces = new Map<string, number[]>();
  for (let i = 0; i < spans.length; i++) {
    const t = spans[i].traceId;
    const list = traces.get(t);
    if (list === undefined) traces.set(t, [i]);
    else list.push(i);
  }
  for (const members of traces.values()) {
    members.sort((a, b) => (spans[a].startNs < spans[b].startNs ? -1 : spans[a].startNs > spans[b].startNs ? 1 : 0));
    const n = members.length;
    // Position in start order of each attached span, by span id.
    const attachedAt = new Map<string, number>();
    const parentPos = new Int32Array(n).fill(DETACHED);
    for (let p = 0; p < n; p++) {
      const s = spans[members[p]];
      if (s.parentId === undefined) parentPos[p] = ROOT;
      else {
        const q = attachedAt.get(s.parentId);
        if (q === undefined) continue;
        parentPos[p] = q;
      }
      if (!attachedAt.has(s.spanId)) attachedAt.set(s.spanId, p);
    }
    visit(members, parentPos);
  }
}
