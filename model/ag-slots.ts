// The `ag` layout's slots in output order (ag-namespace.md §3.6): the one table that the namespace
// processor writes its output by and that the processors adding metrics afterwards (cost, namespace's
// propagate_metrics) insert by. A slot's number is its position here.

/** A scalar slot is one key; a tree slot is a root and every key below it (and the root itself). */
export interface AgSlot {
  readonly key: string;
  readonly tree: boolean;
}

const scalar = (key: string): AgSlot => ({ key, tree: false });
const tree = (key: string): AgSlot => ({ key, tree: true });

export const AG_SLOTS: readonly AgSlot[] = [
  scalar('ag.type.span'), scalar('ag.type.trace'),
  tree('ag.data.parameters'), tree('ag.data.inputs'), tree('ag.data.outputs'), tree('ag.data.internals'),
  scalar('ag.metrics.duration.incremental'), scalar('ag.metrics.duration.cumulative'),
  scalar('ag.metrics.errors.incremental'), scalar('ag.metrics.errors.cumulative'),
  tree('ag.metrics.tokens.incremental'), tree('ag.metrics.tokens.cumulative'),
  tree('ag.metrics.costs.incremental'), tree('ag.metrics.costs.cumulative'), tree('ag.references'),
  scalar('ag.session.id'), scalar('ag.user.id'),
  tree('ag.flags'), tree('ag.tags'), tree('ag.meta'), tree('ag.exception'), tree('ag.selector'), tree('ag.unsupported'),
];
/** One past the last slot: the rank of a key no slot holds. */
export const AG_SLOT_COUNT = AG_SLOTS.length;

/** The number of the slot whose key is `key` (for the users' named constants, built once). */
export function slotNumber(key: string): number {
  const s = AG_SLOTS.findIndex((slot) => slot.key === key);
  if (s < 0) throw new Error(`no ag slot ${key}`);
  return s;
}

/** Slot numbers by key: the scalar slots, and the tree roots as values themselves (`ag.data.outputs`). */
const BY_KEY = new Map(AG_SLOTS.map((slot, s) => [slot.key, s]));
/** The tree slots, grouped by the character after `ag.` so a key is tested against a few roots only. */
const TREES_BY_CHAR: number[][] = [];
for (let s = 0; s < AG_SLOT_COUNT; s++) {
  if (AG_SLOTS[s].tree) (TREES_BY_CHAR[AG_SLOTS[s].key.charCodeAt(3)] ??= []).push(s);
}

/** The tree slot whose root is strictly above `key` (`<root>.<more>`), or -1. */
export function treeSlotBelow(key: string): number {
  const group = TREES_BY_CHAR[key.charCodeAt(3)];
  if (group === undefined) return -1;
  for (let i = 0; i < group.length; i++) {
    const root = AG_SLOTS[group[i]].key;
    if (key.length > root.length && key.charCodeAt(root.length) === 46 /* . */ && key.startsWith(root)) return group[i];
  }
  return -1;
}

/** The slot `key` sits in (a scalar slot's key, a tree root or a key below it), or AG_SLOT_COUNT for any
 *  other key, inside `ag` or not. */
export function slotOf(key: string): number {
  if (key.charCodeAt(0) !== 97 /* a */ || !key.startsWith('ag.')) return AG_SLOT_COUNT;
  const exact = BY_KEY.get(key);
  if (exact !== undefined) return exact;
  const s = treeSlotBelow(key);
  return s < 0 ? AG_SLOT_COUNT : s;
}
