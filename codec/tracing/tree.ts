// The tree form of the tracing API (ingest-api.md §3.3): walking `traces` in pre-order into drafts, and
// counting nodes for the span-count limit. Both walks use an explicit stack, not recursion: the tree's
// depth is bounded only by the receiver's nesting limit, which is configurable.
import { isJsonObject } from '../../model/json-object.ts';
import type { SpanDraft, TracingBody } from '../../model/batch.ts';


/** A node waiting on the stack. */
interface PendingNode {
  value: unknown;
  name: string;
  path: string;
  parent: number | undefined;
  traceKey: string | undefined;
}

/**
 * Pushes the nodes of a children map so that they pop in map order, list elements in array order.
 * `base` is the path of the owner (`traces.<key>` or the parent node's path).
 */
function pushChildren(
  stack: PendingNode[],
  children: Record<string, unknown>,
  base: string,
  parent: number | undefined,
  traceKey: string | undefined,
): void {
  const names = Object.keys(children);
  for (let k = names.length - 1; k >= 0; k--) {
    const name = names[k];
    const v = children[name];
    const path = base + '.spans.' + name;
    if (Array.isArray(v)) {
      for (let j = v.length - 1; j >= 0; j--) {
        stack.push({ value: v[j], name, path: path + '[' + j + ']', parent, traceKey });
      }
    } else {
      stack.push({ value: v, name, path, parent, traceKey });
    }
  }
}

/**
 * Appends one draft per tree node to `out`, in pre-order, with indexes continuing from `out.length`.
 * Trace entries that are not objects, or whose `spans` is absent or not an object, contribute nothing
 * (the receiver answers 422 for the latter before this runs).
 */
export function treeDrafts(traces: Record<string, unknown>, out: SpanDraft[] = []): SpanDraft[] {
  const stack: PendingNode[] = [];
  const keys = Object.keys(traces);
  for (let t = 0; t < keys.length; t++) {
    const key = keys[t];
    const entry = traces[key];
    if (!isJsonObject(entry)) continue;
    const children = entry.spans;
    if (!isJsonObject(children)) continue;
    pushChildren(stack, children, 'traces.' + key, undefined, key);
    while (stack.length > 0) {
      const node = stack.pop() as PendingNode;
      const index = out.length;
      const draft: SpanDraft = {
        index,
        path: node.path,
        value: node.value,
        nodeName: node.name,
        parent: node.parent,
        traceKey: node.traceKey,
        invalidSpans: undefined,
      };
      const value = node.value;
      if (isJsonObject(value)) {
        const sub = value.spans;
        if (sub !== undefined && sub !== null) {
          if (isJsonObject(sub)) pushChildren(stack, sub, node.path, index, undefined);
          else draft.invalidSpans = true;
        }
      }
      out.push(draft);
    }
  }
  return out;
}

/** Pushes every node of a children map (values only) and returns how many were pushed. */
function pushNodeValues(stack: unknown[], children: Record<string, unknown>): number {
  let pushed = 0;
  for (const name in children) {
    if (!Object.hasOwn(children, name)) continue;
    const v = children[name];
    if (Array.isArray(v)) {
      for (let j = 0; j < v.length; j++) stack.push(v[j]);
      pushed += v.length;
    } else {
      stack.push(v);
      pushed++;
    }
  }
  return pushed;
}

/**
 * How many spans the body submits: every flat entry and every tree node, valid or not (the
 * `max_spans_per_request` limit, checked before any per-span check). Stops as soon as the count
 * exceeds `limit` and returns that partial count, so an oversized tree is not walked to the end.
 */
export function countTracingSpans(body: TracingBody, limit = Number.POSITIVE_INFINITY): number {
  if (body.form === 'flat') return body.spans.length;
  const traces = body.traces;
  const stack: unknown[] = [];
  let count = 0;
  for (const key in traces) {
    if (!Object.hasOwn(traces, key)) continue;
    const entry = traces[key];
    if (!isJsonObject(entry) || !isJsonObject(entry.spans)) continue;
    count += pushNodeValues(stack, entry.spans);
    if (count > limit) return count;
    while (stack.length > 0) {
      const value = stack.pop();
      // Order does not matter for a count; children of a node whose `spans` is not an object are not
      // visited, as in treeDrafts.
      if (!isJsonObject(value) || !isJsonObject(value.spans)) continue;
      count += pushNodeValues(stack, value.spans);
      if (count > limit) return count;
    }
  }
  return count;
}
