// The trie behind unflatten (ag-namespace.md §1.3), shared by the plain-object form exporters use and
// the ordered Map form the `namespace` processor works on. Everything is iterative: a key with a million
// dots must not overflow the call stack.
import type { AttrValue } from '../span.ts';
import { setMember } from '../set-member.ts';

export class TrieNode {
  /** Whether a key ends at this node. */
  has = false;
  value: AttrValue = null;
  /** Children in first-appearance order (a Map keeps insertion order for any name). */
  children: Map<string, TrieNode> | null = null;
  /** Set by the builder of a converted value. */
  out: unknown = undefined;
}

export interface Trie {
  root: TrieNode;
  /** True when some key continues below another key's value. */
  shadowing: boolean;
}

/** Inserts every key, in map order, splitting on every `.`. */
export function buildTrie(attrs: Iterable<[string, AttrValue]>): Trie {
  const root = new TrieNode();
  let shadowing = false;
  for (const [key, value] of attrs) {
    let node = root;
    let start = 0;
    for (;;) {
      const dot = key.indexOf('.', start);
      const seg = dot < 0 ? key.slice(start) : key.slice(start, dot);
      let children = node.children;
      if (children === null) children = node.children = new Map();
      let child = children.get(seg);
      if (child === undefined) { child = new TrieNode(); children.set(seg, child); }
      node = child;
      if (dot < 0) break;
      if (node.has) shadowing = true;
      start = dot + 1;
    }
    node.has = true;
    node.value = value;
    if (node.children !== null) shadowing = true;
  }
  return { root, shadowing };
}

/** Whether some proper prefix of `key` holds a value in the trie. */
export function isShadowed(root: TrieNode, key: string): boolean {
  let node = root;
  let start = 0;
  for (;;) {
    const dot = key.indexOf('.', start);
    if (dot < 0) return false;
    const next = node.children?.get(key.slice(start, dot));
    if (next === undefined) return false;
    if (next.has) return true;
    node = next;
    start = dot + 1;
  }
}

/** The keys of `attrs` that continue below another key's value, in map order. */
export function shadowedOf(trie: Trie, attrs: Iterable<[string, AttrValue]>): [string, AttrValue][] {
  const shadowed: [string, AttrValue][] = [];
  if (!trie.shadowing) return shadowed;
  for (const entry of attrs) {
    if (isShadowed(trie.root, entry[0])) shadowed.push([entry[0], entry[1]]);
  }
  return shadowed;
}

/** `0`, `1`, ... `n-1` in canonical decimal: the children form an array. Returns it, or undefined. */
function arrayOrder(children: Map<string, TrieNode>): TrieNode[] | undefined {
  const n = children.size;
  const slots: TrieNode[] = new Array(n);
  for (const [name, child] of children) {
    const len = name.length;
    if (len === 0 || len > 10) return undefined;
    const c0 = name.charCodeAt(0);
    if (c0 === 48 /* 0 */ && len > 1) return undefined;
    let v = 0;
    for (let i = 0; i < len; i++) {
      const c = name.charCodeAt(i);
      if (c < 48 || c > 57) return undefined;
      v = v * 10 + (c - 48);
    }
    if (v >= n) return undefined;
    slots[v] = child;
  }
  return slots;
}

/**
 * Converts the trie below `root` (children of root) into a tree of plain objects (`asMap` false) or of
 * ordered Maps (`asMap` true). Value nodes become their value; nodes below a value are not visited.
 * Post-order without recursion: visit in pre-order, then build in reverse so children come first.
 */
export function convertTrie(root: TrieNode, asMap: boolean): unknown {
  if (root.has) return root.value;
  const order: TrieNode[] = [];
  const pending: TrieNode[] = [root];
  while (pending.length > 0) {
    const node = pending.pop() as TrieNode;
    order.push(node);
    if (node.has || node.children === null) continue;
    for (const child of node.children.values()) pending.push(child);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const node = order[i];
    if (node.has) { node.out = node.value; continue; }
    const children = node.children;
    if (children === null) { node.out = asMap ? new Map() : {}; continue; }
    const slots = node === root ? undefined : arrayOrder(children);
    if (slots !== undefined) {
      const arr: unknown[] = new Array(slots.length);
      for (let j = 0; j < slots.length; j++) { arr[j] = slots[j].out; slots[j].out = undefined; }
      node.out = arr;
    } else if (asMap) {
      const m = new Map<string, unknown>();
      for (const [name, child] of children) { m.set(name, child.out); child.out = undefined; }
      node.out = m;
    } else {
      const o: Record<string, unknown> = {};
      for (const [name, child] of children) { setMember(o, name, child.out); child.out = undefined; }
      node.out = o;
    }
  }
  const out = root.out;
  root.out = undefined;
  return out;
}


/** An ordered tree as `namespace` works on it: Maps for objects (member order kept for any name). */
export type Tree = AttrValue | Tree[] | TreeMap;
export type TreeMap = Map<string, Tree>;
