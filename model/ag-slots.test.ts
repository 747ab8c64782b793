import { describe, expect, it } from 'vitest';
import { AG_SLOT_COUNT, AG_SLOTS, slotOf, treeSlotBelow } from './ag-slots.ts';

const at = (key: string) => AG_SLOTS.findIndex((s) => s.key === key);

describe('the ag slot table', () => {
  it('lists the slots in the output order of ag-namespace.md §3.6', () => {
    expect(AG_SLOTS.map((s) => s.key.slice(3))).toEqual([
      'type.span', 'type.trace', 'data.parameters', 'data.inputs', 'data.outputs', 'data.internals',
      'metrics.duration.incremental', 'metrics.duration.cumulative', 'metrics.errors.incremental',
      'metrics.errors.cumulative', 'metrics.tokens.incremental', 'metrics.tokens.cumulative',
      'metrics.costs.incremental', 'metrics.costs.cumulative', 'references', 'session.id', 'user.id', 'flags',
      'tags', 'meta', 'exception', 'selector', 'unsupported',
    ]);
  });

  it('places a scalar slot\'s key, a tree root and the keys below it, and nothing else', () => {
    expect(slotOf('ag.metrics.errors.cumulative')).toBe(at('ag.metrics.errors.cumulative'));
    expect(slotOf('ag.data.outputs')).toBe(at('ag.data.outputs'));
    expect(slotOf('ag.data.inputs.prompt.0.content')).toBe(at('ag.data.inputs'));
    expect(slotOf('ag.meta.request.model')).toBe(at('ag.meta'));
    expect(slotOf('ag.metrics.tokens.cumulative.total')).toBe(at('ag.metrics.tokens.cumulative'));
    for (const key of ['ag.metricsx', 'ag.metrics.errors.incremental.x', 'ag.metadata', 'ag.type.node', 'ag', 'app.ag.meta', 'gen_ai.system']) {
      expect(slotOf(key), key).toBe(AG_SLOT_COUNT);
    }
    expect(treeSlotBelow('ag.meta')).toBe(-1);
    expect(treeSlotBelow('ag.meta.x')).toBe(at('ag.meta'));
  });
});
