// What S7 decides for one span (ag-namespace.md §3.1), before S9 writes it back: the scalar slots as
// values, the tree slots either as trees (a span that needed S2-S7's rewriting) or as the span's own keys
// already in output order (a span whose plan took it).
import type { Tree, TreeMap } from '../../model/attributes/trie.ts';
import { AttributeListBuilder } from '../../model/attributes/builder.ts';
import type { AttrValue } from '../../model/span.ts';

/** The `ag` keys of a span that took its plan, sorted into tree slots (slots.ts); what S9 copies. */
export interface SlottedKeys {
  /** Entries [0, count) are this span's; the arrays are reused, so they may hold more. */
  count: number;
  keys: string[];
  values: AttrValue[];
  /** Tree slot of each key. */
  slots: number[];
  /** Bit s set when tree slot s holds a key. */
  present: number;
  /** Output order (CanonicalOrder): entry indexes by slot, each slot in input order; `ends` closes the
   *  groups emit writes between the scalar slots (slots.ts GROUP). */
  order: Int32Array;
  ends: Int32Array;
  /** Positions of the keys outside `ag` in `otherKeys` (the plan's keys) and `otherValues` (the span's
   *  values), so emit copies them without testing each key again. */
  otherAt: Int32Array | undefined;
  otherKeys: readonly string[];
  otherValues: readonly AttrValue[];
  /** Where emit builds the span's output list (reused, like the rest). */
  output: AttributeListBuilder;
}

/** An empty SlottedKeys, for one Normaliser to reuse span after span. */
export function emptySlotted(): SlottedKeys {
  return {
    count: 0, keys: [], values: [], slots: [], present: 0, order: new Int32Array(0), ends: new Int32Array(0),
    otherAt: undefined, otherKeys: [], otherValues: [], output: new AttributeListBuilder(),
  };
}

/** The cleaned layout, slot by slot; undefined = absent. */
export interface Cleaned {
  typeSpan?: string;
  typeTrace?: string;
  parameters?: TreeMap;
  inputs?: TreeMap;
  /** Any value; `hasOutputs` tells a present value apart. */
  outputs?: Tree;
  hasOutputs: boolean;
  internals?: TreeMap;
  durationIncremental?: number | bigint;
  durationCumulative?: number | bigint;
  errorsIncremental?: number | bigint;
  errorsCumulative?: number | bigint;
  tokensIncremental?: TreeMap;
  tokensCumulative?: TreeMap;
  costsIncremental?: TreeMap;
  costsCumulative?: TreeMap;
  references?: TreeMap;
  sessionId?: string;
  userId?: string;
  flags?: TreeMap;
  tags?: TreeMap;
  meta?: TreeMap;
  exception?: TreeMap;
  selector?: TreeMap;
  unsupported?: TreeMap;
  /** Set when the span took its plan (plan.ts): the tree slots above as the span's own keys, in output order. */
  slotted?: SlottedKeys;
}

/** Every field present from the start, in one order: all Cleaned objects share one shape, so the reads in
 *  emit and the processor stay monomorphic. */
export function emptyCleaned(): Cleaned {
  return {
    typeSpan: undefined, typeTrace: undefined, parameters: undefined, inputs: undefined, outputs: undefined,
    hasOutputs: false, internals: undefined, durationIncremental: undefined, durationCumulative: undefined,
    errorsIncremental: undefined, errorsCumulative: undefined, tokensIncremental: undefined,
    tokensCumulative: undefined, costsIncremental: undefined, costsCumulative: undefined, references: undefined,
    sessionId: undefined, userId: undefined, flags: undefined, tags: undefined, meta: undefined,
    exception: undefined, selector: undefined, unsupported: undefined, slotted: undefined,
  };
}

/** The same object emptied for reuse (every field written, so the shape stays the one emptyCleaned made). */
export function resetCleaned(c: Cleaned): Cleaned {
  c.typeSpan = undefined; c.typeTrace = undefined; c.parameters = undefined; c.inputs = undefined;
  c.outputs = undefined; c.hasOutputs = false; c.internals = undefined; c.durationIncremental = undefined;
  c.durationCumulative = undefined; c.errorsIncremental = undefined; c.errorsCumulative = undefined;
  c.tokensIncremental = undefined; c.tokensCumulative = undefined; c.costsIncremental = undefined;
  c.costsCumulative = undefined; c.references = undefined; c.sessionId = undefined; c.userId = undefined;
  c.flags = undefined; c.tags = undefined; c.meta = undefined; c.exception = undefined; c.selector = undefined;
  c.unsupported = undefined; c.slotted = undefined;
  return c;
}
