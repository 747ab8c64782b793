import { describe, expect, it } from 'vitest';
import { AttributeListBuilder } from './builder.ts';

describe('AttributeListBuilder', () => {
  it('hands out each list with the members appended since the last, in order, in arrays of their own', () => {
    const b = new AttributeListBuilder();
    for (const [k, v] of [['a', 1], ['b', 'x'], ['c', null], ['d', true]] as const) b.append(k, v);
    const first = b.finish();
    b.append('e', 2n);
    const second = b.finish();
    const third = b.finish();
    expect([...first]).toEqual([['a', 1], ['b', 'x'], ['c', null], ['d', true]]);
    expect([...second]).toEqual([['e', 2n]]);
    expect(third.size).toBe(0);
    // A list handed out is not changed by the builder's later lists, nor the builder by it.
    first.set('z', 9);
    b.append('f', 3);
    expect(first.size).toBe(5);
    expect([...b.finish()]).toEqual([['f', 3]]);
    expect(first.keyArray).not.toBe(second.keyArray);
  });

  it('switches to a real list for Map semantics (asList): later appends go there, and finish hands it out', () => {
    const b = new AttributeListBuilder();
    b.append('a', 1);
    b.append('a', 2);
    const list = b.asList();
    list.dropRepeats();
    list.set('b', 3);
    b.append('c', 4);
    expect(b.finish()).toBe(list);
    expect([...list]).toEqual([['a', 2], ['b', 3], ['c', 4]]);
    b.append('d', 5);
    expect([...b.finish()]).toEqual([['d', 5]]);
  });

  it('clear drops what was appended since the last list (a message that failed part way)', () => {
    const b = new AttributeListBuilder();
    b.append('a', 1);
    b.asList();
    b.append('b', 2);
    b.clear();
    b.append('c', 3);
    expect([...b.finish()]).toEqual([['c', 3]]);
  });

  it('keeps nothing of a message that failed part way once the next list is handed out', () => {
    const b = new AttributeListBuilder();
    for (let i = 0; i < 100; i++) b.append(`k${i}`, `a long text ${i}`);
    b.clear();
    b.append('c', 3);
    expect([...b.finish()]).toEqual([['c', 3]]);
    // The builder's own arrays (private): nothing past the one member may still point at the failed ones.
    const held = b as unknown as { keys: string[]; values: unknown[] };
    expect(held.keys.slice(1).filter((k) => k !== '')).toEqual([]);
    expect(held.values.slice(1).filter((v) => v !== null)).toEqual([]);
  });
});
