import { describe, expect, it } from 'vitest';
import { flattenInto, flattenObject } from './flatten.ts';
import { AttributeList } from './list.ts';

const entries = (m: Map<string, unknown>) => [...m.entries()];

describe('flattenObject (ag-namespace.md §1.2)', () => {
  it('walks depth-first, keeps scalar arrays whole, expands other arrays by index', () => {
    const out = flattenObject({
      ag: { type: { span: 'llm' }, data: { inputs: { docs: [{ text: 'a' }, { text: 'b' }], ids: [1, 2] } } },
      http: { method: 'POST' },
      'http.route': '/x',
    });
    expect(entries(out)).toEqual([
      ['ag.type.span', 'llm'],
      ['ag.data.inputs.docs.0.text', 'a'],
      ['ag.data.inputs.docs.1.text', 'b'],
      ['ag.data.inputs.ids', [1, 2]],
      ['http.method', 'POST'],
      ['http.route', '/x'],
    ]);
  });

  it('keeps the last value at the first position for a duplicate key', () => {
    expect(entries(flattenObject({ a: { b: 1 }, x: true, 'a.b': 2 }))).toEqual([['a.b', 2], ['x', true]]);
  });

  it('drops empty objects except inside an expanded array', () => {
    expect(entries(flattenObject({ e: {}, l: [{}, { a: 1 }], z: [] }))).toEqual([
      ['l.0', null],
      ['l.1.a', 1],
      ['z', []],
    ]);
  });

  it('uses keys verbatim, including empty and dotted keys', () => {
    expect(entries(flattenObject({ '': { a: 1 }, 'p.q': { '': 2 } }))).toEqual([['.a', 1], ['p.q.', 2]]);
  });

  it('keeps mixed scalar arrays, bigints, and names non-finite numbers', () => {
    const big = 2n ** 63n - 1n;
    expect(entries(flattenObject({ m: ['a', 1, true, null], b: big, n: NaN, arr: [Infinity, 1] }))).toEqual([
      ['m', ['a', 1, true, null]],
      ['b', big],
      ['n', 'NaN'],
      ['arr', ['Infinity', 1]],
    ]);
  });

  it('expands nested arrays and survives very deep values without overflowing the stack', () => {
    expect(entries(flattenObject({ a: [[1, 2], [{ b: 3 }]] }))).toEqual([['a.0', [1, 2]], ['a.1.0.b', 3]]);
    let deep: unknown = { leaf: 1 };
    for (let i = 0; i < 20_000; i++) deep = { x: deep };
    const out = new AttributeList();
    flattenInto(deep, 'p', out);
    expect(out.size).toBe(1);
  });

  it('flattenInto emits a scalar at the prefix itself', () => {
    const out = new AttributeList([['k', 0]]);
    flattenInto('v', 'k', out as never);
    flattenInto({}, 'e', out as never);
    expect(entries(out)).toEqual([['k', 'v']]);
  });
});
