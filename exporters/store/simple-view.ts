// The SimpleTrace view of a trace (read-api.md §8.1), built from its head span's record: origin, kind
// and channel from `ag.flags`, `data` / `tags` / `meta` / `references` from the flat `ag.*` attributes,
// `links` from the span's links. Everything works on the stored flat attributes, so a PATCH (which edits
// those same keys) and a GET agree on what a part is.
import { AttributeList } from '../../model/attributes/list.ts';
import { unflatten } from '../../model/attributes/unflatten.ts';
import type { AttrValue } from '../../model/span.ts';
import { normaliseUuid } from '../../model/ids.ts';
import { parseRecord, storeTime, type StoredSpan } from './read-span.ts';
import { setMember } from '../../model/set-member.ts';

type JsonObject = Record<string, unknown>;

export type Origin = 'custom' | 'human' | 'auto';
export type Kind = 'adhoc' | 'eval' | 'play';
export type Channel = 'api' | 'sdk' | 'web' | 'otlp';

/** The `ag.flags` members that origin, kind and channel are read from and written as (§8.6). */
export const SIMPLE_FLAGS = ['is_feedback', 'is_custom', 'is_evaluation', 'is_playground', 'is_sdk', 'is_web', 'is_otlp'];

/** The flags a simple trace writes (ingest-api.md §8.2 with read-api.md §8.6); `auto`, `adhoc`, `api` write none. */
export function flagsFor(origin: Origin, kind: Kind, channel: Channel): JsonObject {
  const flags: JsonObject = {};
  if (origin === 'human') flags.is_feedback = true;
  else if (origin === 'custom') flags.is_custom = true;
  if (kind === 'eval') flags.is_evaluation = true;
  else if (kind === 'play') flags.is_playground = true;
  if (channel === 'sdk') flags.is_sdk = true;
  else if (channel === 'web') flags.is_web = true;
  else if (channel === 'otlp') flags.is_otlp = true;
  return flags;
}

/** The three enums as a flat attribute map reads them (§8.1). */
export function enumsOf(attributes: JsonObject): { origin: Origin; kind: Kind; channel: Channel } {
  const flag = (name: string) => attributes[`ag.flags.${name}`] === true;
  return {
    origin: flag('is_feedback') ? 'human' : flag('is_custom') ? 'custom' : 'auto',
    kind: flag('is_evaluation') ? 'eval' : flag('is_playground') ? 'play' : 'adhoc',
    channel: flag('is_sdk') ? 'sdk' : flag('is_web') ? 'web' : flag('is_otlp') ? 'otlp' : 'api',
  };
}

/** `unflatten` of the keys under `prefix.` (the tree below it), or undefined when there are none. */
export function subtree(attributes: JsonObject, prefix: string): JsonObject | undefined {
  const below = prefix + '.';
  const entries: Array<[string, AttrValue]> = [];
  for (const key of Object.keys(attributes)) {
    if (key.startsWith(below)) entries.push([key.slice(below.length), attributes[key] as AttrValue]);
  }
  return entries.length === 0 ? undefined : unflatten(new AttributeList(entries)).tree;
}

/** `data` of §8.1: the `ag.data` tree, then quarantined `ag.unsupported.data.<k>` keys restored as `<k>`. */
function dataOf(attributes: JsonObject): JsonObject {
  const data = subtree(attributes, 'ag.data') ?? {};
  const quarantined = subtree(attributes, 'ag.unsupported.data');
  if (quarantined !== undefined) {
    for (const key of Object.keys(quarantined)) setMember(data, key, quarantined[key]);
  }
  return data;
}

/** `references` of §8.1, ids as dashed UUIDs. */
function referencesOf(attributes: JsonObject): JsonObject | undefined {
  const refs = subtree(attributes, 'ag.references');
  if (refs === undefined) return undefined;
  for (const entry of Object.values(refs)) {
    if (typeof entry === 'object' && entry !== null && 'id' in entry) {
      const id = normaliseUuid((entry as JsonObject).id);
      if (id !== undefined) (entry as JsonObject).id = id;
    }
  }
  return refs;
}

interface RecordLink {
  trace_id: string;
  span_id: string;
  attributes?: JsonObject;
}

/** `links` of §8.1: a map by `attributes.key` when every link has a distinct one, else a list. */
function linksView(links: RecordLink[]): JsonObject | JsonObject[] | undefined {
  if (links.length === 0) return undefined;
  const keys = links.map((l) => l.attributes?.key);
  const keyed = keys.every((k) => typeof k === 'string') && new Set(keys).size === keys.length;
  if (!keyed) return links.map((l) => ({ trace_id: l.trace_id, span_id: l.span_id }));
  const map: JsonObject = {};
  links.forEach((l, i) => setMember(map, keys[i] as string, { trace_id: l.trace_id, span_id: l.span_id }));
  return map;
}

/** The record's links (absent: none). */
export function recordLinks(record: JsonObject): RecordLink[] {
  return Array.isArray(record.links) ? (record.links as RecordLink[]) : [];
}

/** The view of §8.1 for the head span `row`; `updatedAt` (ms) overrides the stored one (a PATCH's answer). */
export function simpleView(row: StoredSpan, record: JsonObject = parseRecord(row.record), updatedAt?: number): JsonObject {
  const attributes = (record.attributes ?? {}) as JsonObject;
  const view: JsonObject = { trace_id: row.trace_id, span_id: row.span_id, created_at: storeTime(row.created_at) };
  const updated = updatedAt ?? row.updated_at;
  if (updated !== null) view.updated_at = storeTime(updated);
  Object.assign(view, enumsOf(attributes));
  view.data = dataOf(attributes);
  const tags = subtree(attributes, 'ag.tags');
  if (tags !== undefined) view.tags = tags;
  const meta = subtree(attributes, 'ag.meta');
  if (meta !== undefined) view.meta = meta;
  const references = referencesOf(attributes);
  if (references !== undefined) view.references = references;
  const links = linksView(recordLinks(record));
  if (links !== undefined) view.links = links;
  return view;
}
