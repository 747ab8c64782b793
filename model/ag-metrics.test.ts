import { describe, expect, it } from 'vitest';
import { AttributeList } from './attributes/list.ts';
import { replaceTriple, Slot, TOKENS_CUMULATIVE_TRIPLE } from './ag-metrics.ts';

const CUM = 'ag.metrics.tokens.cumulative';
const filler = Array.from({ length: 20 }, (_, i) => [`app.k${i}`, i] as const);

describe('replaceTriple', () => {
  it('overwrites a triple laid out in order where it is, in a list large enough to be indexed', () => {
    const list = new AttributeList([['ag.type.node', 'task'], [`${CUM}.prompt`, 1], [`${CUM}.completion`, 2], [`${CUM}.total`, 3], ...filler]);
    for (let i = 0; i < 12; i++) list.get('app.k19'); // builds the list's index
    replaceTriple(list, TOKENS_CUMULATIVE_TRIPLE, Slot.TOKENS_CUMULATIVE, 10, 20, 30);
    expect(list.keyArray.slice(0, 5)).toEqual(['ag.type.node', `${CUM}.prompt`, `${CUM}.completion`, `${CUM}.total`, 'app.k0']);
    expect(list.valueArray.slice(1, 4)).toEqual([10, 20, 30]);
    expect(list.get('app.k19')).toBe(19);
    expect(list.size).toBe(24);
  });

  it('replaces every key of the tree (out of order, extra, the tree itself) at the first one\'s position', () => {
    const list = new AttributeList([
      ['ag.type.node', 'task'], [`${CUM}.total`, 3], ['app.a', 1], [CUM, 'x'], [`${CUM}.prompt`, 1], [`${CUM}.extra`, 9],
      [`${CUM}x`, 'not below the tree'], ...filler,
    ]);
    replaceTriple(list, TOKENS_CUMULATIVE_TRIPLE, Slot.TOKENS_CUMULATIVE, 10, 20, 30);
    expect(list.keyArray.slice(0, 6)).toEqual(['ag.type.node', `${CUM}.prompt`, `${CUM}.completion`, `${CUM}.total`, 'app.a', `${CUM}x`]);
    expect(list.valueArray.slice(0, 6)).toEqual(['task', 10, 20, 30, 1, 'not below the tree']);
    expect(list.get('app.k0')).toBe(0);
  });

  it('inserts the triple at its slot when the tree is absent', () => {
    const list = new AttributeList([['ag.type.node', 'task'], ['ag.metrics.tokens.incremental.total', 3], ['ag.metrics.costs.incremental.total', 1], ['app.a', 1]]);
    replaceTriple(list, TOKENS_CUMULATIVE_TRIPLE, Slot.TOKENS_CUMULATIVE, 10, 20, 30);
    expect(list.keyArray).toEqual([
      'ag.type.node', 'ag.metrics.tokens.incremental.total', `${CUM}.prompt`, `${CUM}.completion`, `${CUM}.total`,
      'ag.metrics.costs.incremental.total', 'app.a',
    ]);
  });
});

describe('AttributeList.deleteAt', () => {
  it('removes the member at a position and keeps lookups right', () => {
    const list = new AttributeList(filler);
    for (let i = 0; i < 12; i++) list.get('app.k19');
    list.deleteAt(3);
    expect(list.size).toBe(19);
    expect(list.has('app.k3')).toBe(false);
    expect(list.get('app.k4')).toBe(4);
    expect(list.keyArray.indexOf('app.k19')).toBe(18);
    expect(list.indexOf('app.k19')).toBe(18);
  });
});
