import { describe, expect, it } from 'vitest';
import { AttributeList } from './list.ts';
import type { AttrValue, Attributes } from '../span.ts';
import { flattenObject } from './flatten.ts';
import { nestedShape, unflatten } from './unflatten.ts';
import { seededRandom } from '../../test/helpers/random.ts';

const attrs = (o: Record<string, AttrValue> | [string, AttrValue][]): Attributes =>
  new AttributeList(Array.isArray(o) ? o : Object.entries(o));

function scalar(r: () => number): AttrValue {
  const x = r();
  if (x < 0.3) return 's' + Math.floor(r() * 10);
  if (x < 0.55) return Math.floor(r() * 100) - 50;
  if (x < 0.7) return r() < 0.5;
  if (x < 0.8) return null;
  const n = Math.floor(r() * 3);
  const a: AttrValue = [];
  for (let i = 0; i < n; i++) a.push(r() < 0.5 ? 'x' : i);
  return a;
}

/** A random flat map with colliding, digit, empty and shadowing keys. */
function randomFlat(r: () => number): Attributes {
  const segs = ['a', 'b', '0', '1', '2', '01', '', 'c'];
  const m: Attributes = new AttributeList();
  const n = 1 + Math.floor(r() * 12);
  for (let i = 0; i < n; i++) {
    const depth = 1 + Math.floor(r() * 4);
    const parts: string[] = [];
    for (let d = 0; d < depth; d++) parts.push(segs[Math.floor(r() * segs.length)]);
    m.set(parts.join('.'), scalar(r));
  }
  return m;
}

/** A random nested object satisfying G3's conditions: no empty objects, no dotted keys, and no object
 *  whose key set is exactly {"0".."n-1"} (keys never include "0"). */
function randomNested(r: () => number, depth: number): Record<string, unknown> {
  const keys = ['a', 'b', 'c', '1', '2', '_', ''];
  const o: Record<string, unknown> = {};
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) o[keys[Math.floor(r() * keys.length)]] = randomValue(r, depth + 1);
  return o;
}

function randomValue(r: () => number, depth: number): unknown {
  const x = r();
  if (depth > 3 || x < 0.45) return scalar(r);
  if (x < 0.75) return randomNested(r, depth);
  const n = 1 + Math.floor(r() * 3);
  const a: unknown[] = [];
  for (let i = 0; i < n; i++) a.push(r() < 0.6 ? randomNested(r, depth + 1) : scalar(r));
  return a;
}

/** The value at a flat key's path in a tree, or a unique marker when the path does not exist. */
const MISSING = Symbol('missing');
function at(tree: unknown, key: string): unknown {
  let node = tree;
  for (const seg of key.split('.')) {
    if (node === null || typeof node !== 'object') return MISSING;
    if (!Object.prototype.hasOwnProperty.call(node, seg)) return MISSING;
    node = (node as Record<string, unknown>)[seg];
  }
  return node;
}

function shuffle<T>(r: () => number, a: T[]): T[] {
  const b = a.slice();
  for (let i = b.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [b[i], b[j]] = [b[j], b[i]];
  }
  return b;
}

describe('unflatten (ag-namespace.md §1.3)', () => {
  it('E2: arrays for dense indexes, objects otherwise, leaf wins, empty segments', () => {
    const { tree, shadowed } = unflatten(attrs({
      'm.0.role': 'user', 'm.1.role': 'bot', 's.1': 'x', 's.3': 'y', k: 1, 'k.z': 2, 'e..f': true, 'n.01': 'p',
    }));
    expect(tree).toEqual({
      m: [{ role: 'user' }, { role: 'bot' }], s: { 1: 'x', 3: 'y' }, k: 1, e: { '': { f: true } }, n: { '01': 'p' },
    });
    expect(Object.keys(tree)).toEqual(['m', 's', 'k', 'e', 'n']);
    expect(shadowed).toEqual([['k.z', 2]]);
  });

  it('a leaf shadows the keys below it whatever the order', () => {
    const a = unflatten(attrs([['a', 1], ['a.b', 2], ['a.c.d', 3]]));
    const b = unflatten(attrs([['a.c.d', 3], ['a.b', 2], ['a', 1]]));
    expect(a.tree).toEqual({ a: 1 });
    expect(b.tree).toEqual({ a: 1 });
    expect(a.shadowed).toEqual([['a.b', 2], ['a.c.d', 3]]);
    expect(b.shadowed).toEqual([['a.c.d', 3], ['a.b', 2]]);
  });

  it('indexes in any order make an array in index order; gaps and huge indexes make objects', () => {
    expect(unflatten(attrs([['l.1', 'b'], ['l.0', 'a']])).tree).toEqual({ l: ['a', 'b'] });
    const sparse = unflatten(attrs([['l.0', 'a'], ['l.2024', 'b']])).tree as { l: Record<string, unknown> };
    expect(Array.isArray(sparse.l)).toBe(false);
    expect(sparse.l).toEqual({ 0: 'a', 2024: 'b' });
    const huge = unflatten(attrs([['l.4294967296', 1]])).tree as { l: unknown };
    expect(huge.l).toEqual({ 4294967296: 1 });
  });

  it('treats __proto__ as an ordinary member and survives a very long key', () => {
    const { tree } = unflatten(attrs([['__proto__.x', 1], ['y', 2]]));
    expect(Object.getPrototypeOf(tree)).toBe(Object.prototype);
    expect(Object.keys(tree)).toEqual(['__proto__', 'y']);
    expect(JSON.stringify(tree)).toBe('{"__proto__":{"x":1},"y":2}');
    const long = Array.from({ length: 100_000 }, () => 'a').join('.');
    let node: unknown = unflatten(attrs([[long, 1]])).tree;
    let depth = 0;
    while (node !== null && typeof node === 'object') { node = (node as { a: unknown }).a; depth++; }
    expect([depth, node]).toEqual([100_000, 1]);
  });

  it('empty input gives an empty tree', () => {
    expect(unflatten(new AttributeList())).toEqual({ tree: {}, shadowed: [] });
  });

  it('G1: deterministic; key order only changes the order of object members', () => {
    const r = seededRandom(1);
    for (let i = 0; i < 300; i++) {
      const f = randomFlat(r);
      const a = unflatten(f);
      const b = unflatten(new AttributeList(shuffle(r, [...f])));
      expect(b.tree).toEqual(a.tree);
      expect(new Set(b.shadowed.map(([k]) => k))).toEqual(new Set(a.shadowed.map(([k]) => k)));
      expect(unflatten(f)).toEqual(a);
    }
  });

  it('G2: every input value is in the tree or in shadowed', () => {
    const r = seededRandom(2);
    for (let i = 0; i < 300; i++) {
      const f = randomFlat(r);
      const { tree, shadowed } = unflatten(f);
      const sh = new Map(shadowed);
      for (const [k, v] of f) {
        if (sh.has(k)) expect(sh.get(k)).toEqual(v);
        else expect(at(tree, k)).toEqual(v);
      }
    }
  });

  it('G3: unflatten(flatten(N)).tree == N', () => {
    const r = seededRandom(3);
    for (let i = 0; i < 300; i++) {
      const n = randomNested(r, 0);
      expect(unflatten(flattenObject(n)).tree).toEqual(n);
    }
  });

  it('G4: flatten(unflatten(F).tree) == F when F is the flatten of an unflatten tree, order included', () => {
    const r = seededRandom(4);
    for (let i = 0; i < 300; i++) {
      const f = flattenObject(unflatten(randomFlat(r)).tree);
      expect([...flattenObject(unflatten(f).tree)]).toEqual([...f]);
    }
  });
});

describe('nestedShape', () => {
  it('adds _shadowed with the flat keys when something was shadowed', () => {
    expect(nestedShape(attrs({ a: 1, 'a.b': 2 }))).toEqual({ a: 1, _shadowed: { 'a.b': 2 } });
    expect(nestedShape(attrs({ a: 1 }))).toEqual({ a: 1 });
  });

  it('nests non-ag index keys only in this shape', () => {
    expect(nestedShape(attrs({ 'some.more.array.0': 'x' }))).toEqual({ some: { more: { array: ['x'] } } });
  });
});
