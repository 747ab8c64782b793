// unflatten(flat map) -> (tree, shadowed) (ag-namespace.md §1.3) and the nested attribute shape that
// exporters write for `attributes_shape: nested`.
import type { AttrValue, Attributes } from '../span.ts';
import { setMember } from '../set-member.ts';
import { buildTrie, convertTrie, shadowedOf, type TreeMap } from './trie.ts';

export interface Unflattened {
  tree: Record<string, unknown>;
  /** Keys left out because a shorter key holds a value, as `[key, value]` in map order. */
  shadowed: [string, AttrValue][];
}

/**
 * Splits every key on every `.`; a key that holds a value wins over keys continuing below it (those are
 * shadowed, whatever the order); dense `0..n-1` children become arrays, anything else an object with
 * members in first-appearance order. The top level is always an object.
 */
export function unflatten(attrs: Attributes): Unflattened {
  const trie = buildTrie(attrs);
  const tree = attrs.size === 0 ? {} : (convertTrie(trie.root, false) as Record<string, unknown>);
  return { tree, shadowed: shadowedOf(trie, attrs) };
}

/**
 * The nested shape: the unflatten tree plus, when something was shadowed, a top-level `_shadowed`
 * object of the flat keys, so nothing is lost. (A plain object moves integer-like member names first;
 * readers must not rely on their order.)
 */
export function nestedShape(attrs: Attributes): Record<string, unknown> {
  const { tree, shadowed } = unflatten(attrs);
  if (shadowed.length > 0) {
    const s: Record<string, unknown> = {};
    for (const [k, v] of shadowed) setMember(s, k, v);
    setMember(tree, '_shadowed', s);
  }
  return tree;
}

export interface UnflattenedOrdered {
  tree: TreeMap;
  shadowed: [string, AttrValue][];
}

/** unflatten into ordered Maps instead of plain objects, so integer-like member names keep their place. */
export function unflattenOrdered(attrs: Iterable<[string, AttrValue]>): UnflattenedOrdered {
  const trie = buildTrie(attrs);
  const tree = trie.root.children === null ? new Map() : (convertTrie(trie.root, true) as TreeMap);
  return { tree, shadowed: shadowedOf(trie, attrs) };
}
