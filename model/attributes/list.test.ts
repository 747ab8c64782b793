import { describe, expect, it } from 'vitest';
import { JsonWriter } from '../../codec/record/json-writer.ts';
import type { AttrValue } from '../span.ts';
import { flattenInto } from './flatten.ts';
import { AttributeList } from './list.ts';

/** The members as [key, value] pairs, in order, read through the Map API. */
const pairs = (m: Map<string, AttrValue>) => [...m];

/** A deterministic pseudo-random sequence (xorshift), so a failure replays. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

describe('AttributeList', () => {
  it('answers every Map method as a Map does, over random operations on small and large lists', () => {
    // Key pools below and above the size where a list may get an index of its own; three lists at once,
    // worked on in runs (a list gets its index after a run of lookups).
    for (const keyCount of [5, 40]) {
      const next = random(keyCount);
      const lists = [new AttributeList(), new AttributeList(), new AttributeList()];
      const maps = [new Map<string, AttrValue>(), new Map<string, AttrValue>(), new Map<string, AttrValue>()];
      let which = 0;
      for (let step = 0; step < 6000; step++) {
        if (next() < 0.08) which = Math.floor(next() * 3);
        const list = lists[which];
        const map = maps[which];
        const key = `k${Math.floor(next() * keyCount)}`;
        const op = next();
        if (op < 0.6) {
          list.set(key, step);
          map.set(key, step);
        } else if (op < 0.75) expect(list.delete(key)).toBe(map.delete(key));
        else if (op < 0.9) expect(list.get(key)).toBe(map.get(key));
        else if (op < 0.999) expect(list.has(key)).toBe(map.has(key));
        else {
          list.clear();
          map.clear();
        }
        expect(list.size).toBe(map.size);
      }
      for (let i = 0; i < 3; i++) {
        expect(pairs(lists[i])).toEqual(pairs(maps[i]));
        expect([...lists[i].keys()]).toEqual([...maps[i].keys()]);
        expect([...lists[i].values()]).toEqual([...maps[i].values()]);
        expect([...lists[i].entries()]).toEqual([...maps[i].entries()]);
      }
    }
  });

  it('dropRepeats after appends leaves what set() would have, on small and large lists', () => {
    const next = random(7);
    for (const keyCount of [4, 12, 30, 60]) {
      for (let round = 0; round < 50; round++) {
        const list = new AttributeList();
        const map = new Map<string, AttrValue>();
        const n = Math.floor(next() * keyCount * 1.5);
        for (let i = 0; i < n; i++) {
          const key = `k${Math.floor(next() * keyCount)}`;
          list.append(key, i);
          map.set(key, i);
        }
        list.dropRepeats();
        expect(pairs(list)).toEqual(pairs(map));
        expect(list.keyArray.every((k) => list.get(k) === map.get(k))).toBe(true);
      }
    }
  });

  it('walks members added during a for-of, as a Map does', () => {
    const list = new AttributeList().set('a', 1);
    const seen: string[] = [];
    for (const [k] of list) {
      seen.push(k);
      if (k === 'a') list.set('b', 2);
    }
    expect(seen).toEqual(['a', 'b']);
  });

  it('keeps a key set again at its first position with the new value (ag-namespace.md §1.2)', () => {
    const list = new AttributeList().set('a', 1).set('b', 2).set('a', 3);
    expect(pairs(list)).toEqual([['a', 3], ['b', 2]]);
  });

  it('appends without a lookup, and the index of a large list follows later appends', () => {
    const list = new AttributeList();
    for (let i = 0; i < 20; i++) list.append(`k${i}`, i);
    for (let i = 0; i < 20; i++) expect(list.get(`k${i}`)).toBe(i); // the index is built on the way
    list.append('late', 'x');
    expect(list.get('late')).toBe('x');
    list.set('late', 'y');
    expect(list.size).toBe(21);
    expect(list.keyArray.at(-1)).toBe('late');
    expect(list.valueArray.at(-1)).toBe('y');
  });

  it('inserts members at a position, the end and the start, and a large list\'s lookups find every member after it', () => {
    const list = new AttributeList();
    for (let i = 0; i < 20; i++) list.append(`k${i}`, i);
    for (let i = 0; i < 20; i++) list.get(`k${i}`); // builds the index
    list.insert(3, ['new', 'new2'], ['n', 'm']);
    expect(list.keyArray.slice(2, 6)).toEqual(['k2', 'new', 'new2', 'k3']);
    expect(list.valueArray.slice(2, 6)).toEqual([2, 'n', 'm', 3]);
    expect(list.get('new2')).toBe('m');
    expect(list.get('k19')).toBe(19);
    expect(list.size).toBe(22);
    list.insert(22, ['end'], [1]);
    list.insert(0, ['first'], [0]);
    expect([list.keyArray[0], list.keyArray.at(-1), list.size]).toEqual(['first', 'end', 24]);
  });

  it('calls forEach with value, key, the list and thisArg, in order', () => {
    const list = new AttributeList().set('a', 1).set('b', null);
    const seen: unknown[] = [];
    const self = { tag: 'this' };
    list.forEach(function (this: unknown, value, key, map) {
      seen.push([value, key, map === list, this]);
    }, self);
    expect(seen).toEqual([[1, 'a', true, self], [null, 'b', true, self]]);
  });

  it('is built from entries as a Map is, and equals another list with the same members in the same order only', () => {
    const entries: [string, AttrValue][] = [['x', 'y'], ['n', 1n], ['x', 'z'], ['arr', [1, 'two', null]]];
    const list = new AttributeList(entries);
    expect(pairs(list)).toEqual([...new Map(entries)]);
    expect(list).toEqual(new AttributeList().set('x', 'z').set('n', 1n).set('arr', [1, 'two', null]));
    expect(list).not.toEqual(new AttributeList([['n', 1n], ['x', 'z'], ['arr', [1, 'two', null]]]));
    expect(list).not.toEqual(new AttributeList([['x', 'z'], ['n', 2n], ['arr', [1, 'two', null]]]));
    expect(list).not.toEqual(new Map(list));
    expect(Object.prototype.toString.call(list)).toBe('[object AttributeList]');
  });

  it('is read as a map, not as an object with fields, where a value may be a Map (flatten, record writer)', () => {
    const list = new AttributeList().set('b', 1).set('a', 'x');
    const out = new AttributeList();
    flattenInto(list, 'p', out);
    expect(pairs(out)).toEqual([['p.b', 1], ['p.a', 'x']]);
    const w = new JsonWriter(64);
    w.plainValue({ m: list });
    expect(w.bytes().toString()).toBe('{"m":{"b":1,"a":"x"}}');
  });
});
