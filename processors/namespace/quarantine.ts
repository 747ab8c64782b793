// `ag.unsupported` (ag-namespace.md §3.2): what cannot be placed is moved there, never dropped.
import { flattenInto } from '../../model/attributes/flatten.ts';
import type { Tree, TreeMap } from '../../model/attributes/trie.ts';
import { unflattenOrdered } from '../../model/attributes/unflatten.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { Attributes } from '../../model/span.ts';

/** Quarantined values in the order they were quarantined; paths are below `ag`. */
export class Quarantine {
  readonly paths: string[][] = [];
  readonly values: Tree[] = [];

  add(path: string[], value: Tree): void {
    this.paths.push(path);
    this.values.push(value);
  }

  /** A flat `ag.<p>` key quarantined at `unsupported.<p>`. */
  addKey(agKey: string, value: Tree): void {
    this.add(agKey.slice(3).split('.'), value);
  }

  /** Empties a scratch quarantine for reuse. */
  clear(): void {
    this.paths.length = 0;
    this.values.length = 0;
  }

  get size(): number {
    return this.paths.length;
  }
}

/**
 * Writes every quarantined value into the client's `ag.unsupported` tree (each replacing whatever was at,
 * above or below its path; a new subtree is placed where it is first created), then emits the result as
 * canonical flat keys under `ag.unsupported`.
 */
export function emitUnsupported(client: TreeMap | undefined, q: Quarantine, out: Attributes): void {
  if (q.size === 0) {
    // The client's own subtree came straight from unflatten, so it is already canonical.
    emitRoot(client, out);
    return;
  }
  const root: TreeMap = client ?? new Map();
  for (let i = 0; i < q.paths.length; i++) {
    const path = q.paths[i];
    let node = root;
    for (let j = 0; j < path.length - 1; j++) {
      const child = node.get(path[j]);
      if (child instanceof Map) { node = child; continue; }
      const made: TreeMap = new Map();
      node.set(path[j], made);
      node = made;
    }
    node.set(path[path.length - 1], q.values[i]);
  }
  // Paths written side by side can form dense index names (`0`, `1`) that unflatten reads as an array;
  // a flatten/unflatten round trip makes the output the canonical form a second run would produce.
  const flat = new AttributeList();
  flattenInto(root, 'ag.unsupported', flat);
  const tree = unflattenOrdered(flat).tree.get('ag');
  const canonical = tree instanceof Map ? tree.get('unsupported') : undefined;
  emitRoot(canonical, out);
}

/**
 * The root of `ag.unsupported` is always written as an object: an array there (members named `0..n-1`)
 * is written member by member, which reads back as the same array and so stays the same on a second run.
 */
function emitRoot(root: Tree | undefined, out: Attributes): void {
  if (Array.isArray(root)) {
    for (let i = 0; i < root.length; i++) flattenInto(root[i], 'ag.unsupported.' + i, out);
  } else if (root !== undefined) {
    flattenInto(root, 'ag.unsupported', out);
  }
}
