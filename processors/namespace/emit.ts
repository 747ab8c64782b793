// S9: the attributes written back (ag-namespace.md §3.6): the cleaned `ag` tree flattened in slot order,
// then every other key in input order, untouched.
import { flattenInto } from '../../model/attributes/flatten.ts';
import type { Tree } from '../../model/attributes/trie.ts';
import type { AttributeListBuilder } from '../../model/attributes/builder.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { Attributes } from '../../model/span.ts';
import type { Cleaned, SlottedKeys } from './layout.ts';
import { isAgKey } from './keys.ts';
import { emitUnsupported, type Quarantine } from './quarantine.ts';

/** Only the general path puts trees: its `out` is an AttributeList (see emitAttributes). */
function put(out: AttributeList | AttributeListBuilder, key: string, v: Tree | undefined): void {
  if (v !== undefined) flattenInto(v, key, out as AttributeList);
}

/**
 * The output list. The scalar slots' keys are appended: no slot root is above any of them, so nothing
 * else written here can equal one. Trees go through `set` (flattenInto) on the general path.
 */
export function emitAttributes(input: Attributes, c: Cleaned, q: Quarantine): Attributes {
  const f = c.slotted;
  // A span that took its plan only appends: its list is built at its exact size (SlottedKeys.output).
  const out = f !== undefined ? f.output : new AttributeList();
  out.append('ag.type.span', c.typeSpan as string);
  out.append('ag.type.trace', c.typeTrace as string);
  if (f !== undefined) emitGroup(f, 0, f.output);
  else {
    put(out, 'ag.data.parameters', c.parameters);
    put(out, 'ag.data.inputs', c.inputs);
    if (c.hasOutputs) put(out, 'ag.data.outputs', c.outputs);
    put(out, 'ag.data.internals', c.internals);
  }
  if (c.durationIncremental !== undefined) out.append('ag.metrics.duration.incremental', c.durationIncremental);
  if (c.durationCumulative !== undefined) out.append('ag.metrics.duration.cumulative', c.durationCumulative);
  if (c.errorsIncremental !== undefined) out.append('ag.metrics.errors.incremental', c.errorsIncremental);
  if (c.errorsCumulative !== undefined) out.append('ag.metrics.errors.cumulative', c.errorsCumulative);
  if (f !== undefined) emitGroup(f, 1, f.output);
  else {
    put(out, 'ag.metrics.tokens.incremental', c.tokensIncremental);
    put(out, 'ag.metrics.tokens.cumulative', c.tokensCumulative);
    put(out, 'ag.metrics.costs.incremental', c.costsIncremental);
    put(out, 'ag.metrics.costs.cumulative', c.costsCumulative);
    put(out, 'ag.references', c.references);
  }
  if (c.sessionId !== undefined) out.append('ag.session.id', c.sessionId);
  if (c.userId !== undefined) out.append('ag.user.id', c.userId);
  if (f !== undefined) emitGroup(f, 2, f.output);
  else {
    put(out, 'ag.flags', c.flags);
    put(out, 'ag.tags', c.tags);
    put(out, 'ag.meta', c.meta);
    put(out, 'ag.exception', c.exception);
    put(out, 'ag.selector', c.selector);
    emitUnsupported(c.unsupported, q, out as AttributeList);
  }
  // Keys outside `ag`, unique in the input: none can be present already.
  const at = f?.otherAt;
  if (at !== undefined) {
    const { otherKeys, otherValues } = f as SlottedKeys;
    for (let j = 0; j < at.length; j++) out.append(otherKeys[at[j]], otherValues[at[j]]);
  } else {
    const { keyArray, valueArray } = input;
    for (let i = 0; i < keyArray.length; i++) if (!isAgKey(keyArray[i])) out.append(keyArray[i], valueArray[i]);
  }
  return f !== undefined ? f.output.finish() : (out as AttributeList);
}

/**
 * Writes slot group `g` of a span that took its plan (CanonicalOrder's groups: 0 data, 1 metric trees and
 * references, 2 the rest). The keys are unique: the order check refuses a key equal to, above or below
 * another, and no slot key equals a scalar slot's.
 */
function emitGroup(f: SlottedKeys, g: number, out: AttributeListBuilder): void {
  const { order, keys, values, ends } = f;
  for (let j = g === 0 ? 0 : ends[g - 1]; j < ends[g]; j++) {
    const i = order[j];
    out.append(keys[i], values[i]);
  }
}
