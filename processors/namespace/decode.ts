// Value decoding (ag-namespace.md §3.4): `@ag.type=` prefixes (S2) and JSON strings in the data slots (S5).
// Both rebuild the ag map only when a key actually changes, and rebuild it in order so that an expanded
// key follows the duplicate rule of §1.2 (Map.set: later value, earlier position).
import { flattenInto } from '../../model/attributes/flatten.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { Attributes } from '../../model/span.ts';
import { NOT_JSON, isAgKey, isPlainObject, tryJson } from './keys.ts';
import type { Quarantine } from './quarantine.ts';

export const TYPED = '@ag.type=';
export const TYPED_JSON = '@ag.type=json:';
export const TYPED_NONE = '@ag.type=none:';

export function isTyped(v: unknown): boolean {
  return typeof v === 'string' && v.startsWith(TYPED);
}

/**
 * S2 on the `ag` keys of `ag` (other keys are kept as they are): `@ag.type=json:<json>` is parsed in
 * place (flattened when structured); `@ag.type=none:` is null. Repeated while something decodes: a
 * decoded value can itself be a prefixed string, and a second run of the processor would decode it, so
 * the first must. Returns `ag` itself when nothing decodes, else a new AttributeList.
 */
export function decodeTyped(ag: Attributes): Attributes {
  for (;;) {
    const next = decodeTypedOnce(ag);
    if (next === ag) return ag;
    ag = next;
  }
}

function decodeTypedOnce(ag: Attributes): Attributes {
  let any = false;
  for (const v of ag.values()) if (isTyped(v)) { any = true; break; }
  if (!any) return ag;
  let changed = false;
  const out = new AttributeList();
  for (const [k, v] of ag) {
    if (isTyped(v) && isAgKey(k)) {
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

/** The slots S5 decodes. */
const DATA_JSON_SLOTS = ['ag.data.inputs', 'ag.data.parameters', 'ag.data.internals'];

/** True when S5 has work here: a string at one of its slots. */
export function anyStringDataSlot(ag: { get(key: string): unknown }): boolean {
  for (let i = 0; i < DATA_JSON_SLOTS.length; i++) if (typeof ag.get(DATA_JSON_SLOTS[i]) === 'string') return true;
  return false;
}

function isDataJsonSlot(k: string): boolean {
  return k === 'ag.data.inputs' || k === 'ag.data.parameters' || k === 'ag.data.internals';
}

/**
 * True when something written at or below `target` (a semantic-convention row's output, ag-namespace.md
 * §6.1, including what S2 expands under its keys) can land on a slot S5 decodes: the slot is the target
 * or below it. Decided once per plan (semconv/rows.ts), so that S5's three lookups are skipped per span
 * for families that cannot write a data slot (~5% of the namespace stage on the OTLP bench, profiled).
 */
export function mayWriteDataJsonSlot(target: string): boolean {
  const below = target + '.';
  return isDataJsonSlot(target) || 'ag.data.inputs'.startsWith(below) || 'ag.data.parameters'.startsWith(below)
    || 'ag.data.internals'.startsWith(below);
}

/**
 * S5: a string at `ag.data.inputs|parameters|internals` must be a JSON object; its members replace the key
 * in place. Anything else quarantines the original string at `unsupported.data.<slot>`.
 */
export function decodeDataSlots(ag: Attributes, q: Quarantine): Attributes {
  if (!anyStringDataSlot(ag)) return ag;
  const out = new AttributeList();
  for (const [k, v] of ag) {
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
