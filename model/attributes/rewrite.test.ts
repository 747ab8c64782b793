// rewriteStrings against a plain rebuild of the list (the oracle): every string value and string array
// element goes through the rewriter, changed values keep their position, a removed attribute is gone,
// and an unchanged value (array included) is the very same object.
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/helpers/random.ts';
import { AttributeList, type AttrScalar, type AttrValue } from './list.ts';
import { REMOVE, rewriteStrings, type StringRewriter } from './rewrite.ts';

/** Upper-cases strings holding `x`, removes the attribute for strings holding `!`; keys `keep.*` are left whole. */
const rewriter: StringRewriter = {
  member: (key, v) => (key.startsWith('keep.') ? v : undefined),
  string: (_key, s) => (s.includes('!') ? REMOVE : s.includes('x') ? s.toUpperCase() : s),
};

function oracle(entries: Array<[string, AttrValue]>): Array<[string, AttrValue]> {
  const out: Array<[string, AttrValue]> = [];
  for (const [k, v] of entries) {
    if (k.startsWith('keep.')) { out.push([k, v]); continue; }
    const one = (s: AttrScalar) => (typeof s !== 'string' ? s : s.includes('x') ? s.toUpperCase() : s);
    const bad = (s: AttrScalar) => typeof s === 'string' && s.includes('!');
    if (Array.isArray(v) ? v.some(bad) : bad(v)) continue;
    out.push([k, Array.isArray(v) ? v.map(one) : one(v)]);
  }
  return out;
}

describe('rewriteStrings', () => {
  it('matches a plain rebuild on random lists, and keeps unchanged values as the same objects', () => {
    const random = seededRandom(2101);
    const scalar = (): AttrScalar => {
      const r = random();
      if (r < 0.5) return ['a', 'bx', 'c!', 'dd', ''][Math.floor(random() * 5)];
      return r < 0.7 ? Math.floor(random() * 10) : r < 0.85 ? random() < 0.5 : null;
    };
    for (let round = 0; round < 500; round++) {
      const entries: Array<[string, AttrValue]> = [];
      const n = Math.floor(random() * 8);
      for (let i = 0; i < n; i++) {
        const value = random() < 0.3 ? Array.from({ length: Math.floor(random() * 4) }, scalar) : scalar();
        entries.push([`${random() < 0.2 ? 'keep' : 'k'}.${i}`, value]);
      }
      const list = new AttributeList(entries);
      rewriteStrings(list, rewriter);
      expect([...list]).toEqual(oracle(entries));
      for (const [k, v] of list) {
        const before = entries.find(([key]) => key === k)![1];
        if (JSON.stringify(before) === JSON.stringify(v)) expect(v).toBe(before);
      }
    }
  });
});
