// The trace map (read-api.md §4): every stored span of a trace exactly once. Roots and orphans (parent
// not stored) at the top level, children under their parent whatever their start times, spans caught in
// a parent cycle placed from the earliest one; siblings by start time, then span id; same-name siblings
// form a list.
import { readSpan, type AttributesForm, type StoredSpan } from './read-span.ts';
import { setMember } from '../../model/set-member.ts';

/** A stored span with what the trace map needs to place it. */
export interface LoadedSpan extends TreeSpan {
  row: StoredSpan;
  name: string;
}

export function loaded(row: StoredSpan): LoadedSpan {
  return { row, spanId: row.span_id, parentId: row.parent_id, startNs: row.start_ns, name: row.span_name };
}

/** `{"spans": {...}}` of §4 for the stored spans of one trace. */
export function traceMap(spans: readonly LoadedSpan[], form: AttributesForm = 'nested'): Record<string, unknown> {
  return { spans: spansMap(placeSpans(spans), (s) => readSpan(s.row, form), (s) => s.name) };
}

export interface TreeSpan {
  spanId: string;
  parentId: string | null;
  startNs: bigint;
}

export interface Placed<S extends TreeSpan> {
  span: S;
  children: Placed<S>[];
}

function byStartThenId(a: TreeSpan, b: TreeSpan): number {
  if (a.startNs !== b.startNs) return a.startNs < b.startNs ? -1 : 1;
  return a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0;
}

/** The forest of §4, top level and children in sibling order. */
export function placeSpans<S extends TreeSpan>(spans: readonly S[]): Placed<S>[] {
  const sorted = [...spans].sort(byStartThenId);
  const ids = new Set(sorted.map((s) => s.spanId));
  const children = new Map<string, S[]>();
  for (const s of sorted) {
    if (s.parentId === null || !ids.has(s.parentId)) continue;
    let list = children.get(s.parentId);
    if (list === undefined) children.set(s.parentId, (list = []));
    list.push(s);
  }
  const placed = new Set<string>();
  // Iterative, so a deep chain of spans cannot exhaust the call stack.
  const place = (root: S): Placed<S> => {
    const top: Placed<S> = { span: root, children: [] };
    placed.add(root.spanId);
    const stack = [top];
    while (stack.length > 0) {
      const node = stack.pop()!;
      for (const child of children.get(node.span.spanId) ?? []) {
        if (placed.has(child.spanId)) continue;
        placed.add(child.spanId);
        const placedChild: Placed<S> = { span: child, children: [] };
        node.children.push(placedChild);
        stack.push(placedChild);
      }
    }
    return top;
  };
  const top: Placed<S>[] = [];
  for (const s of sorted) if (s.parentId === null || !ids.has(s.parentId)) top.push(place(s));
  // What is left hangs in a parent cycle: the earliest goes up, its descendants under it, and again.
  for (const s of sorted) if (!placed.has(s.spanId)) top.push(place(s));
  return top.sort((a, b) => byStartThenId(a.span, b.span));
}

/** Spans in pre-order (§4): a span, then its children, from the top level. */
export function preOrder<S extends TreeSpan>(forest: Placed<S>[]): S[] {
  const out: S[] = [];
  const stack = [...forest].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    out.push(node.span);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return out;
}

/**
 * A `spans` map of §4: names in first-appearance order, a list for same-name siblings. `body` gives a
 * span's response object and `name` its span name.
 */
export function spansMap<S extends TreeSpan>(
  nodes: Placed<S>[], body: (span: S) => Record<string, unknown>, name: (span: S) => string,
): Record<string, unknown> {
  const groups = new Map<string, Record<string, unknown>[]>();
  for (const node of nodes) {
    const object = body(node.span);
    if (node.children.length > 0) object.spans = spansMap(node.children, body, name);
    const key = name(node.span);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [object]);
    else group.push(object);
  }
  const out: Record<string, unknown> = {};
  // A span named `__proto__` must become a member, not a prototype.
  for (const [key, group] of groups) setMember(out, key, group.length === 1 ? group[0] : group);
  return out;
}
