// `ag.references` (ag-namespace.md §3.5): known keys only, each `{id?, slug?, version?}`; every bad field
// is quarantined alone and an entry left without fields is omitted.
import { AttributeList } from '../../model/attributes/list.ts';
import type { Tree, TreeMap } from '../../model/attributes/trie.ts';
import { normaliseUuid } from '../../model/ids.ts';
import { REFERENCE_KEYS, type SpanReference } from '../../model/span.ts';
import type { Quarantine } from './quarantine.ts';


export const SLUG = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/** String, or a number/boolean as its JSON text; undefined for other values. */
function asText(v: Tree): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return undefined;
}

function cleanField(field: string, v: Tree): string | undefined {
  if (field === 'id') return normaliseUuid(v);
  if (field === 'slug') {
    const s = asText(v);
    return s !== undefined && SLUG.test(s) ? s : undefined;
  }
  if (field === 'version') return asText(v);
  return undefined;
}

/** Cleans the references Map in place; returns it, or undefined when no entry is left. */
export function cleanReferences(refs: TreeMap, q: Quarantine): TreeMap | undefined {
  for (const [key, entry] of refs) {
    if (entry === null) { refs.delete(key); continue; }
    if (!REFERENCE_KEYS.has(key) || !(entry instanceof Map)) {
      q.add(['references', key], entry);
      refs.delete(key);
      continue;
    }
    for (const [field, v] of entry) {
      if (v === null) { entry.delete(field); continue; }
      const cleaned = cleanField(field, v);
      if (cleaned === undefined) {
        q.add(['references', key, field], v);
        entry.delete(field);
      } else if (cleaned !== v) {
        entry.set(field, cleaned);
      }
    }
    if (entry.size === 0) refs.delete(key);
  }
  return refs.size === 0 ? undefined : refs;
}

/** A reference item's attributes: the `ag.references` key it came from. */
export function referenceAttributes(key: string): AttributeList {
  const attributes = new AttributeList();
  attributes.append('key', key);
  return attributes;
}

/** The span's `references` list from the cleaned `ag.references` (one item per entry, in order). */
export function referenceList(refs: TreeMap): SpanReference[] {
  const list: SpanReference[] = [];
  for (const [key, entry] of refs) {
    const m = entry as TreeMap;
    const item: SpanReference = { attributes: referenceAttributes(key) };
    const id = m.get('id');
    if (typeof id === 'string') item.id = id;
    const slug = m.get('slug');
    if (typeof slug === 'string') item.slug = slug;
    const version = m.get('version');
    if (typeof version === 'string') item.version = version;
    list.push(item);
  }
  return list;
}
