// What both OTLP encoders share: spans grouped into ResourceSpans by resource and ScopeSpans by scope
// (span-record.md "OTLP encodings"), and the `ag.*` attributes that carry the record fields OTLP has no
// place for.
import type { AttrValue, Attributes, Span, SpanScope } from '../../model/span.ts';

export interface ScopeGroup {
  scope: SpanScope | undefined;
  schemaUrl: string;
  spans: Span[];
}

export interface ResourceGroup {
  resource: Attributes | undefined;
  schemaUrl: string;
  scopes: ScopeGroup[];
}

/** A stable text for an attribute map's content; two maps with equal entries in equal order match. */
function attributesKey(attrs: Attributes | undefined): string {
  if (attrs === undefined || attrs.size === 0) return '';
  let key = '';
  for (const [k, v] of attrs) key += k + '\u0000' + valueKey(v) + '\u0001';
  return key;
}

function valueKey(v: AttrValue): string {
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) s += valueKey(v[i]) + ',';
    return s + ']';
  }
  // The type prefix keeps "1" (string) and 1 (number) apart.
  return (v === null ? 'z' : typeof v === 'string' ? 's' : typeof v === 'boolean' ? 'b' : 'n') + String(v);
}

/**
 * Groups spans by resource (attributes + resource schema url) and, inside, by scope (name, version,
 * attributes, scope schema url), keeping first-appearance order. Spans decoded from one ResourceSpans
 * share their resource and scope objects, so a span with the same objects and schema urls as the one
 * before goes to the same group without building or looking up any key (the keys cost ~220 B and two
 * string hashes per span, measured on the benchmark's batches); other spans go through per-object key caches.
 */
export function groupSpans(spans: Span[]): ResourceGroup[] {
  const groups: ResourceGroup[] = [];
  const byResource = new Map<string, { group: ResourceGroup; byScope: Map<string, ScopeGroup> }>();
  const resourceKeys = new Map<Attributes, string>();
  const scopeKeys = new Map<SpanScope, string>();
  // The previous span's resource, scope and schema urls, and the group it went to.
  let lastResource: Attributes | undefined;
  let lastScope: SpanScope | undefined;
  let lastResourceUrl = '';
  let lastScopeUrl = '';
  let lastGroup: ScopeGroup | undefined;
  for (let i = 0; i < spans.length; i++) {
    const span = spans[i];
    const resourceSchemaUrl = span.otlp?.resourceSchemaUrl ?? '';
    const scopeSchemaUrl = span.otlp?.scopeSchemaUrl ?? '';
    if (
      lastGroup !== undefined &&
      span.resource === lastResource &&
      span.scope === lastScope &&
      resourceSchemaUrl === lastResourceUrl &&
      scopeSchemaUrl === lastScopeUrl
    ) {
      lastGroup.spans.push(span);
      continue;
    }
    let rKey = '';
    if (span.resource !== undefined) {
      let k = resourceKeys.get(span.resource);
      if (k === undefined) {
        k = attributesKey(span.resource);
        resourceKeys.set(span.resource, k);
      }
      rKey = k;
    }
    rKey = resourceSchemaUrl + '\u0002' + rKey;
    let entry = byResource.get(rKey);
    if (entry === undefined) {
      const group: ResourceGroup = {
        resource: span.resource !== undefined && span.resource.size > 0 ? span.resource : undefined,
        schemaUrl: resourceSchemaUrl,
        scopes: [],
      };
      entry = { group, byScope: new Map() };
      byResource.set(rKey, entry);
      groups.push(group);
    }
    let sKey = '';
    if (span.scope !== undefined) {
      let k = scopeKeys.get(span.scope);
      if (k === undefined) {
        k = span.scope.name + '\u0000' + (span.scope.version ?? '') + '\u0000' + attributesKey(span.scope.attributes);
        scopeKeys.set(span.scope, k);
      }
      sKey = k;
    }
    sKey = scopeSchemaUrl + '\u0002' + sKey;
    let scopeGroup = entry.byScope.get(sKey);
    if (scopeGroup === undefined) {
      scopeGroup = { scope: span.scope, schemaUrl: scopeSchemaUrl, spans: [] };
      entry.byScope.set(sKey, scopeGroup);
      entry.group.scopes.push(scopeGroup);
    }
    scopeGroup.spans.push(span);
    lastResource = span.resource;
    lastScope = span.scope;
    lastResourceUrl = resourceSchemaUrl;
    lastScopeUrl = scopeSchemaUrl;
    lastGroup = scopeGroup;
  }
  return groups;
}

/**
 * The `ag.*` attributes that carry span type, trace type, references, session and user
 * (span-record.md), for the keys the span's attributes do not already hold. Undefined when none.
 * The namespace processor normally wrote them already, so this is usually a few lookups.
 */
export function agExtras(span: Span): Array<[string, AttrValue]> | undefined {
  const attrs = span.attributes;
  let out = addAbsent(undefined, attrs, 'ag.type.span', span.spanType);
  out = addAbsent(out, attrs, 'ag.type.trace', span.traceType);
  const refs = span.references;
  if (refs !== undefined) {
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i];
      const k = ref.attributes.get('key');
      // A reference without a key still travels, under its position, so nothing is lost.
      const prefix = 'ag.references.' + (typeof k === 'string' && k !== '' ? k : String(i));
      out = addAbsent(out, attrs, prefix + '.id', ref.id);
      out = addAbsent(out, attrs, prefix + '.slug', ref.slug);
      out = addAbsent(out, attrs, prefix + '.version', ref.version);
      for (const [ak, av] of ref.attributes) if (ak !== 'key') out = addAbsent(out, attrs, prefix + '.attributes.' + ak, av);
    }
  }
  out = addAbsent(out, attrs, 'ag.session.id', span.sessionId);
  return addAbsent(out, attrs, 'ag.user.id', span.userId);
}

function addAbsent(
  out: Array<[string, AttrValue]> | undefined,
  attrs: Attributes,
  key: string,
  value: AttrValue | undefined,
): Array<[string, AttrValue]> | undefined {
  if (value === undefined || attrs.has(key)) return out;
  (out ??= []).push([key, value]);
  return out;
}
