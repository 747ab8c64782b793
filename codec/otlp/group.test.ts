// groupSpans against a plain reference grouping (content keys, no caches, no same-as-last shortcut), on
// random spans whose resources and scopes are shared objects, equal copies, or different, in runs and
// interleaved, with and without schema urls.
import { describe, expect, it } from 'vitest';
import { AttributeList } from '../../model/attributes/list.ts';
import type { Span, SpanScope } from '../../model/span.ts';
import { groupSpans } from './group.ts';
import { seededRandom } from '../../test/helpers/random.ts';

function contentKey(s: Span): [string, string] {
  const resource = JSON.stringify([s.otlp?.resourceSchemaUrl ?? '', [...(s.resource ?? new AttributeList())]]);
  const scope = s.scope === undefined ? null : [s.scope.name, s.scope.version ?? '', [...(s.scope.attributes ?? new AttributeList())]];
  return [resource, JSON.stringify([s.otlp?.scopeSchemaUrl ?? '', scope])];
}

/** [resource key, [scope key, span ids]] in first-appearance order. */
function reference(spans: Span[]): Array<[string, Array<[string, string[]]>]> {
  const out = new Map<string, Map<string, string[]>>();
  for (const s of spans) {
    const [r, sc] = contentKey(s);
    if (!out.has(r)) out.set(r, new Map());
    const scopes = out.get(r)!;
    if (!scopes.has(sc)) scopes.set(sc, []);
    scopes.get(sc)!.push(s.spanId);
  }
  return [...out].map(([r, scopes]) => [r, [...scopes]]);
}

describe('groupSpans', () => {
  it('groups like a plain content-keyed grouping, whatever objects the spans share', () => {
    const rand = seededRandom(11);
    for (let round = 0; round < 200; round++) {
      const resources = [undefined, new AttributeList([['service.name', 'a']]), new AttributeList([['service.name', 'a']]), new AttributeList([['service.name', 'b']])];
      const scopes: Array<SpanScope | undefined> = [undefined, { name: 'x' }, { name: 'x' }, { name: 'x', version: '2' }];
      const urls = ['', 'u1'];
      const spans: Span[] = [];
      let resource = resources[0];
      let scope = scopes[0];
      let otlp: Span['otlp'];
      for (let i = 0; i < 30; i++) {
        // Runs of the same objects (as decoded requests give), broken now and then.
        if (rand() < 0.3) resource = resources[Math.floor(rand() * resources.length)];
        if (rand() < 0.3) scope = scopes[Math.floor(rand() * scopes.length)];
        if (rand() < 0.15) otlp = rand() < 0.5 ? undefined : { resourceSchemaUrl: urls[Math.floor(rand() * 2)], scopeSchemaUrl: urls[Math.floor(rand() * 2)] };
        spans.push({
          traceId: '01'.repeat(16),
          spanId: String(i),
          name: 'n',
          kind: 0,
          startNs: 0n,
          endNs: 0n,
          status: { code: 0 },
          attributes: new AttributeList(),
          resource,
          scope,
          otlp,
        });
      }
      const got = groupSpans(spans).map((g) => [
        contentKey(g.scopes[0].spans[0])[0],
        g.scopes.map((sg) => [contentKey(sg.spans[0])[1], sg.spans.map((s) => s.spanId)]),
      ]);
      expect(got).toEqual(reference(spans));
    }
  });
});
