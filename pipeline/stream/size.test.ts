import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/helpers/random.ts';
import { makeSpan } from '../../test/helpers/spans.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { Attributes, AttrValue, Span } from '../../model/span.ts';
import { estimateFromWire, estimateSpanBytes, keptShare } from './size.ts';

/** The estimate's formula spelled out entry by entry, as a reference for the walk in size.ts. */
function referenceAttributes(attrs: Attributes | undefined): number {
  let sum = 0;
  for (const [key, value] of attrs ?? []) {
    sum += 48 + key.length * 2;
    if (typeof value === 'string') sum += value.length * 2;
    else if (Array.isArray(value)) for (const v of value) sum += typeof v === 'string' ? v.length * 2 + 16 : 16;
    else sum += 16;
  }
  return sum;
}

function reference(span: Span): number {
  let n = 400 + span.name.length * 2 + referenceAttributes(span.attributes) + referenceAttributes(span.resource);
  for (const e of span.events ?? []) n += 48 + e.name.length * 2 + referenceAttributes(e.attributes);
  for (const l of span.links ?? []) n += 96 + referenceAttributes(l.attributes);
  for (const r of span.references ?? []) n += 96 + referenceAttributes(r.attributes);
  if (span.status.message) n += span.status.message.length * 2;
  return n;
}

describe('span size estimate', () => {
  it('equals the entry-by-entry formula on random spans', () => {
    const random = seededRandom(350);
    const text = () => 'x'.repeat(Math.floor(random() * 300)) + (random() < 0.2 ? 'é✓' : '');
    const value = (): AttrValue => {
      const r = random();
      if (r < 0.4) return text();
      if (r < 0.55) return Math.floor(random() * 1e6);
      if (r < 0.65) return random() < 0.5;
      if (r < 0.75) return random() * 10;
      return Array.from({ length: Math.floor(random() * 4) }, () => (random() < 0.5 ? text() : Math.floor(random() * 9)));
    };
    const attributes = (): Attributes => new AttributeList(Array.from({ length: Math.floor(random() * 20) }, (_, i) => [`k${i}.${text().slice(0, 20)}`, value()]));
    for (let i = 0; i < 300; i++) {
      const span = makeSpan({
        name: text(),
        attributes: attributes(),
        resource: random() < 0.8 ? attributes() : undefined,
        events: random() < 0.5 ? [{ timeNs: 1n, name: text(), attributes: attributes() }] : undefined,
        links: random() < 0.3 ? [{ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), attributes: attributes() }] : undefined,
        status: random() < 0.3 ? { code: 2, message: text() } : { code: 0 },
      } as Partial<Span>);
      expect(estimateSpanBytes(span)).toBe(reference(span));
    }
  });

  it('grows with the text a client sent', () => {
    const small = makeSpan({ attributes: new AttributeList([['input', 'x']]) });
    const large = makeSpan({ attributes: new AttributeList([['input', 'x'.repeat(10_000)]]) });
    expect(estimateSpanBytes(large) - estimateSpanBytes(small)).toBe(2 * 9_999);
  });

  it('from body bytes: grows with them, and a rejected part of the body is not counted', () => {
    expect(estimateFromWire(100, 60_000) - estimateFromWire(100, 50_000)).toBe(3 * 10_000);
    expect(estimateFromWire(2, 0)).toBe(2 * 400);
    expect(keptShare(1000, 3, 3)).toBe(1000);
    expect(keptShare(1000, 1, 3)).toBe(334);
    expect(keptShare(1000, 0, 3)).toBe(0);
  });
});
