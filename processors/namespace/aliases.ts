// S3 aliases (ag-namespace.md §3.3), applied whatever the source. A rewritten key keeps the alias key's
// position; when the target (or a key above or below it) was sent explicitly, the explicit key wins and
// the alias key is quarantined under its own path.
import { AttributeList } from '../../model/attributes/list.ts';
import type { AttrValue, Attributes } from '../../model/span.ts';
import { KeySpace } from './keys.ts';
import type { Quarantine } from './quarantine.ts';

const REMOVED = '';
const CONFIG = 'ag.meta.configuration';
const PARAMS = 'ag.data.parameters';

/** Renames inside `ag.references` (legacy variant/environment fields). */
function referenceRename(k: string): string {
  switch (k) {
    case 'ag.references.variant.id': return 'ag.references.application_variant.id';
    case 'ag.references.variant.slug': return 'ag.references.application_variant.slug';
    case 'ag.references.variant.version': return 'ag.references.application_revision.version';
    case 'ag.references.environment.version': return 'ag.references.environment_revision.version';
    default: return k;
  }
}

/** The key an alias becomes, REMOVED for a dropped alias, or undefined when `k` is not an alias. */
export function aliasTarget(k: string): string | undefined {
  // Every alias is below ag.refs, ag.references, ag.type, ag.metrics or ag.meta: a cheap first filter.
  if (k.length < 9 || k.charCodeAt(3) < 109 /* m */ || k.charCodeAt(3) > 116 /* t */) return undefined;
  if (k.startsWith('ag.refs.')) return referenceRename('ag.references.' + k.slice(8));
  if (k.startsWith('ag.references.')) {
    const r = referenceRename(k);
    return r === k ? undefined : r;
  }
  if (k === 'ag.type.node') return 'ag.type.span';
  if (k.startsWith('ag.metrics.')) {
    if (k.startsWith('ag.metrics.unit.tokens.')) return 'ag.metrics.tokens.incremental.' + k.slice(23);
    if (k.startsWith('ag.metrics.unit.costs.')) return 'ag.metrics.costs.incremental.' + k.slice(22);
    if (k.startsWith('ag.metrics.acc.tokens.')) return 'ag.metrics.tokens.cumulative.' + k.slice(22);
    if (k.startsWith('ag.metrics.acc.costs.')) return 'ag.metrics.costs.cumulative.' + k.slice(21);
    if (k === 'ag.metrics.acc.duration.total') return REMOVED;
    return undefined;
  }
  if (k === CONFIG) return PARAMS;
  if (k.startsWith(CONFIG + '.')) return PARAMS + k.slice(CONFIG.length);
  return undefined;
}

export function rewriteAliases(ag: Attributes, q: Quarantine): Attributes {
  let any = false;
  for (const k of ag.keys()) if (aliasTarget(k) !== undefined) { any = true; break; }
  if (!any) return ag;
  const explicit = new KeySpace();
  for (const k of ag.keys()) if (aliasTarget(k) === undefined) explicit.add(k);
  // meta.configuration moves only when nothing at all sits at, above or below ag.data.parameters.
  const paramsTaken = explicit.conflicts(PARAMS);
  const out = new AttributeList();
  for (const [k, v] of ag) {
    const t = aliasTarget(k);
    if (t === undefined) { out.set(k, v); continue; }
    if (t === REMOVED) continue;
    const isConfig = k === CONFIG || k.startsWith(CONFIG + '.');
    if (isConfig ? paramsTaken : explicit.conflicts(t)) { q.addKey(k, v); continue; }
    let value: AttrValue = v;
    if (k === 'ag.type.node' && typeof v === 'string') value = v.toLowerCase();
    out.set(t, value);
  }
  return out;
}
