// S9: the attributes written back (ag-namespace.md §3.6): the cleaned `ag` tree flattened in slot order,
// then every other key in input order, untouched.
import { flattenInto } from '../../model/attributes/flatten.ts';
import type { Tree } from '../../model/attributes/trie.ts';
import type { AttributeListBuilder } from '../../model/attributes/builder.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import { AG_SLOTS } from '../../model/ag-slots.ts';
import type { AttrValue, Attributes } from '../../model/span.ts';
import type { Cleaned, SlottedKeys } from './layout.ts';
import { isAgKey } from './keys.ts';
import { emitUnsupported, type Quarantine } from './quarantine.ts';
import {
  CLOSES_GROUP, COSTS_CUM, COSTS_INC, DURATION_CUM, DURATION_INC, ERRORS_CUM, ERRORS_INC, EXCEPTION, FLAGS, GROUP, INPUTS,
  INTERNALS, META, OUTPUTS, PARAMETERS, REFERENCES, SELECTOR, SESSION, SLOT_COUNT, TAGS, TOKENS_CUM, TOKENS_INC,
  TYPE_SPAN, TYPE_TRACE, UNSUPPORTED, USER,
} from './slots.ts';

const SLOT_KEYS = AG_SLOTS.map((slot) => slot.key);
/** A span that took its plan, slot by slot: a scalar slot (its number) or, after the last slot of a run of
 *  tree slots, that run (~group). */
const PLAN_STEPS: number[] = [];
for (let s = 0; s < SLOT_COUNT; s++) {
  if (GROUP[s] < 0) PLAN_STEPS.push(s);
  else if (CLOSES_GROUP[s]) PLAN_STEPS.push(~GROUP[s]);
}

/** A scalar slot's value, by slot number (undefined: absent). */
function scalarValue(c: Cleaned, s: number): AttrValue | undefined {
  switch (s) {
    case TYPE_SPAN: return c.typeSpan;
    case TYPE_TRACE: return c.typeTrace;
    case DURATION_INC: return c.durationIncremental;
    case DURATION_CUM: return c.durationCumulative;
    case ERRORS_INC: return c.errorsIncremental;
    case ERRORS_CUM: return c.errorsCumulative;
    case SESSION: return c.sessionId;
    case USER: return c.userId;
    default: return undefined;
  }
}

/** A tree slot's tree on the general path, by slot number (undefined: absent). */
function treeValue(c: Cleaned, s: number): Tree | undefined {
  switch (s) {
    case PARAMETERS: return c.parameters;
    case INPUTS: return c.inputs;
    case OUTPUTS: return c.hasOutputs ? c.outputs : undefined;
    case INTERNALS: return c.internals;
    case TOKENS_INC: return c.tokensIncremental;
    case TOKENS_CUM: return c.tokensCumulative;
    case COSTS_INC: return c.costsIncremental;
    case COSTS_CUM: return c.costsCumulative;
    case REFERENCES: return c.references;
    case FLAGS: return c.flags;
    case TAGS: return c.tags;
    case META: return c.meta;
    case EXCEPTION: return c.exception;
    case SELECTOR: return c.selector;
    default: return undefined;
  }
}

/**
 * The output list, slot by slot in the order of model/ag-slots.ts. The scalar slots' keys are appended: no
 * slot root is above any of them, so nothing else written here can equal one. A span that took its plan
 * has its tree slots' keys in output order already (emitGroup); on the general path trees go through
 * `set` (flattenInto).
 */
export function emitAttributes(input: Attributes, c: Cleaned, q: Quarantine): Attributes {
  const f = c.slotted;
  if (f !== undefined) {
    // A span that took its plan only appends: its list is built at its exact size (SlottedKeys.output).
    const out = f.output;
    for (let i = 0; i < PLAN_STEPS.length; i++) {
      const step = PLAN_STEPS[i];
      if (step < 0) emitGroup(f, ~step, out);
      else {
        const v = scalarValue(c, step);
        if (v !== undefined) out.append(SLOT_KEYS[step], v);
      }
    }
    // Keys outside `ag`, unique in the input: none can be present already.
    const at = f.otherAt;
    if (at !== undefined) {
      const { otherKeys, otherValues } = f;
      for (let j = 0; j < at.length; j++) out.append(otherKeys[at[j]], otherValues[at[j]]);
    } else appendOthers(input, out);
    return out.finish();
  }
  const out = new AttributeList();
  for (let s = 0; s < SLOT_COUNT; s++) {
    if (GROUP[s] < 0) {
      const v = scalarValue(c, s);
      if (v !== undefined) out.append(SLOT_KEYS[s], v);
    } else if (s === UNSUPPORTED) emitUnsupported(c.unsupported, q, out);
    else {
      const v = treeValue(c, s);
      if (v !== undefined) flattenInto(v, SLOT_KEYS[s], out);
    }
  }
  appendOthers(input, out);
  return out;
}

/** Keys outside `ag`, unique in the input: none can be present already. */
function appendOthers(input: Attributes, out: AttributeList | AttributeListBuilder): void {
  const { keyArray, valueArray } = input;
  for (let i = 0; i < keyArray.length; i++) if (!isAgKey(keyArray[i])) out.append(keyArray[i], valueArray[i]);
}

/**
 * Writes slot group `g` of a span that took its plan (CanonicalOrder's groups: the runs of tree slots
 * between scalar slots, slots.ts GROUP). The keys are unique: the order check refuses a key equal to, above or below
 * another, and no slot key equals a scalar slot's.
 */
function emitGroup(f: SlottedKeys, g: number, out: AttributeListBuilder): void {
  const { order, keys, values, ends } = f;
  for (let j = g === 0 ? 0 : ends[g - 1]; j < ends[g]; j++) {
    const i = order[j];
    out.append(keys[i], values[i]);
  }
}
