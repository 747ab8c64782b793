// The span a simple-trace edit appends (read-api.md §8.3 step 2): the head span's stored record with the
// edited parts replaced whole and everything else kept (ids, name, times, kind, status, events, types,
// other attributes, resource, scope). The result is a flat tracing-API span object, so it goes through the
// same span checks and synchronous processors as every written span.
import { enumsOf, flagsFor, SIMPLE_FLAGS } from '../../exporters/store/simple-view.ts';
import { linksOf, referencesOf, type SimpleTraceParts } from './simple-trace.ts';
import { setMember } from '../../model/set-member.ts';

type JsonObject = Record<string, unknown>;

/** `attributes` without `prefix` itself and every key below it. */
function withoutPart(attributes: JsonObject, prefix: string): JsonObject {
  const below = prefix + '.';
  return Object.fromEntries(Object.entries(attributes).filter(([key]) => key !== prefix && !key.startsWith(below)));
}

/**
 * The edited span for the stored `record` (span-record JSON, flat attributes). A part's new value is put
 * under its prefix as an object; the span checks flatten it like any submitted attribute object (an
 * empty object leaves no key, which clears the part).
 */
export function editedSpan(record: JsonObject, edit: SimpleTraceParts): JsonObject {
  const { project: _project, ...span } = record;
  let attributes = (span.attributes ?? {}) as JsonObject;
  if (edit.data !== undefined) {
    attributes = withoutPart(withoutPart(attributes, 'ag.data'), 'ag.unsupported.data');
    setMember(attributes, 'ag.data', edit.data);
  }
  if (edit.tags !== undefined) {
    attributes = withoutPart(attributes, 'ag.tags');
    setMember(attributes, 'ag.tags', edit.tags);
  }
  if (edit.meta !== undefined) {
    attributes = withoutPart(attributes, 'ag.meta');
    setMember(attributes, 'ag.meta', edit.meta);
  }
  if (edit.references !== undefined) {
    // The `references` list is rebuilt from `ag.references` by the namespace processor, as on write.
    attributes = withoutPart(attributes, 'ag.references');
    delete span.references;
    const references = referencesOf(edit.references);
    if (references !== undefined) setMember(attributes, 'ag.references', references);
  }
  if (edit.links !== undefined) span.links = linksOf(edit.links);
  if (edit.origin !== undefined || edit.kind !== undefined || edit.channel !== undefined) {
    const kept = enumsOf(attributes);
    for (const flag of SIMPLE_FLAGS) delete attributes[`ag.flags.${flag}`];
    const flags = flagsFor(edit.origin ?? kept.origin, edit.kind ?? kept.kind, edit.channel ?? kept.channel);
    for (const flag of Object.keys(flags)) attributes[`ag.flags.${flag}`] = true;
  }
  span.attributes = attributes;
  return span;
}
