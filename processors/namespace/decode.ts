// Value decoding (ag-namespace.md §3.4): `@ag.type=` prefixes (S2) and JSON strings in the data slots (S5).
// Both rebuild the ag map only when a key actually changes, and rebuild it in order so that an expanded
// key follows the duplicate rule of §1.2 (Map.set: later value, earlier position).
import { flattenInto } from '../../model/attributes/flatten.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import { NOT_JSON, isPlainObject, tryJson } from './keys.ts';
import type { Quarantine } from './quarantine.ts';

const TYPED = '@ag.type=';
const TYPED_JSON = '@ag.type=json:';
const TYPED_NONE = '@ag.type=none:';

export function isTyped(v: unknown): boolean {
  return typeof v === 'string' && v.startsWith(TYPED);
}

/**
 * S2: `@ag.type=json:<json>` is parsed in place (flattened when structured); `@ag.type=none:` is null.
 * Repeated while something decodes: a decoded value can itself be a prefixed string, and a second run of
 * the processor would decode it, so the first must.
 */
export function decodeTyped(ag: AttributeList): AttributeList {
  for (;;) {
    const next = decodeTypedOnce(ag);
    if (next === ag) return ag;
    ag = next;
  }
}

function decodeTypedOnce(ag: AttributeList): AttributeList {
  const keys = ag.keyArray;
  const values = ag.valueArray;
  let first = 0;
  while (first < values.length && !isTyped(values[first])) first++;
  if (first === values.length) return ag;
  let changed = false;
  const out = new AttributeList();
  for (let i = 0; i < first; i++) out.append(keys[i], values[i]);
  for (let i = first; i < keys.length; i++) {
    const k = keys[i];
    const v = values[i];
    if (isTyped(v)) {
      const s = v as string;
      if (s === TYPED_NONE) { out.set(k, null); changed = true; continue; }
      if (s.startsWith(TYPED_JSON)) {
        const parsed = tryJson(s.slice(TYPED_JSON.length));
        if (parsed !== NOT_JSON) { flattenInto(parsed, k, out); changed = true; continue; }
      }
    }
    out.set(k, v);
  }
  return changed ? out : ag;
}

export function isDataJsonSlot(k: string): boolean {
  return k === 'ag.data.inputs' || k === 'ag.data.parameters' || k === 'ag.data.internals';
}

/**
 * S5: a string at `ag.data.inputs|parameters|internals` must be a JSON object; its members replace the key
 * in place. Anything else quarantines the original string at `unsupported.data.<slot>`.
 */
export function decodeDataSlots(ag: AttributeList, q: Quarantine): AttributeList {
  const keys = ag.keyArray;
  const values = ag.valueArray;
  let first = 0;
  while (first < keys.length && !(typeof values[first] === 'string' && isDataJsonSlot(keys[first]))) first++;
  if (first === keys.length) return ag;
  const out = new AttributeList();
  for (let i = 0; i < first; i++) out.append(keys[i], values[i]);
  for (let i = first; i < keys.length; i++) {
    const k = keys[i];
    const v = values[i];
    if (typeof v === 'string' && isDataJsonSlot(k)) {
      const parsed = tryJson(v);
      if (isPlainObject(parsed)) flattenInto(parsed, k, out);
      else q.addKey(k, v);
      continue;
    }
    out.set(k, v);
  }
  return out;
}
