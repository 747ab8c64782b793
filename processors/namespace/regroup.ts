// The order unflatten-then-flatten gives a slot's keys (ag-namespace.md §1.3, §3.6): every key beside
// the others below the same node, nodes in order of first appearance. A span takes its plan only when each
// slot's keys are already in that order (canonical.ts); when they are not only because a group was
// interrupted (`ag.meta.response.model`, `ag.meta.request.max_tokens`, `ag.meta.response.id`: what every
// OpenAI instrumentation sends once gen_ai is mapped), this gives the order the tree would write, and the
// check then runs on it. Without it such spans all went through the tree: ~200 us per LLM span of ~45
// attributes against ~35 (docs/performance.md, round 0450).

/** Keys with more segments below their slot root are left to the tree. */
const MAX_SEGMENTS = 32;

interface GroupNode {
  /** Entries whose key ends at this node (one, unless the key repeats; the canonical check refuses that). */
  entries: number[];
  children: Map<string, GroupNode> | undefined;
}

function node(): GroupNode {
  return { entries: [], children: undefined };
}

/**
 * Reorders `bucket[0, n)` (entry indexes into `keys`, in input order; every key at or below a root of
 * `rootLen` characters) into first-appearance tree order. False, `bucket` unchanged, for a key too deep.
 */
export function regroup(keys: readonly string[], bucket: number[], n: number, rootLen: number): boolean {
  const root = node();
  for (let m = 0; m < n; m++) {
    const k = keys[bucket[m]];
    let at = root;
    let segments = 0;
    for (let a = rootLen + 1; a <= k.length; ) {
      if (++segments > MAX_SEGMENTS) return false;
      let b = k.indexOf('.', a);
      if (b < 0) b = k.length;
      const segment = k.slice(a, b);
      at.children ??= new Map();
      let child = at.children.get(segment);
      if (child === undefined) {
        child = node();
        at.children.set(segment, child);
      }
      at = child;
      a = b + 1;
    }
    at.entries.push(bucket[m]);
  }
  // Depth-first, each node's own entries before its children: an explicit stack (depth is bounded
  // above, but the walk need not rely on it).
  let out = 0;
  const stack: GroupNode[] = [root];
  while (stack.length > 0) {
    const at = stack.pop() as GroupNode;
    for (let i = 0; i < at.entries.length; i++) bucket[out++] = at.entries[i];
    if (at.children !== undefined) {
      const children = [...at.children.values()];
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  }
  return true;
}
