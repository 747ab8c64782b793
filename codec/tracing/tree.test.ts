import { describe, expect, it } from 'vitest';
import { countTracingSpans, treeDrafts } from './tree.ts';

const KEY = '4bf92f3577b34da6a3ce929d0e0e4736';

/** index, path, nodeName, parent, traceKey of each draft. */
function shape(traces: Record<string, unknown>) {
  return treeDrafts(traces).map((d) => [d.index, d.path, d.nodeName, d.parent, d.traceKey]);
}

describe('tree walk (ingest-api.md §3.3)', () => {
  it('pre-order, map order, list order; paths, parents and trace keys', () => {
    const traces = {
      [KEY]: {
        spans: {
          agent: { span_id: 'a', spans: { lookup: { span_id: 'b', spans: { deep: {} } }, tool: [{}, {}] } },
          retry: [{ span_id: 'c' }, { span_id: 'd' }],
        },
      },
      other: { spans: { solo: {} }, ignored: 1 },
    };
    expect(shape(traces)).toEqual([
      [0, `traces.${KEY}.spans.agent`, 'agent', undefined, KEY],
      [1, `traces.${KEY}.spans.agent.spans.lookup`, 'lookup', 0, undefined],
      [2, `traces.${KEY}.spans.agent.spans.lookup.spans.deep`, 'deep', 1, undefined],
      [3, `traces.${KEY}.spans.agent.spans.tool[0]`, 'tool', 0, undefined],
      [4, `traces.${KEY}.spans.agent.spans.tool[1]`, 'tool', 0, undefined],
      [5, `traces.${KEY}.spans.retry[0]`, 'retry', undefined, KEY],
      [6, `traces.${KEY}.spans.retry[1]`, 'retry', undefined, KEY],
      [7, 'traces.other.spans.solo', 'solo', undefined, 'other'],
    ]);
  });

  it('non-object nodes and list elements become drafts whose value is not an object', () => {
    const drafts = treeDrafts({ t: { spans: { a: 'x', b: [1, [2], null], c: null } } });
    expect(drafts.map((d) => [d.path, d.value])).toEqual([
      ['traces.t.spans.a', 'x'],
      ['traces.t.spans.b[0]', 1],
      ['traces.t.spans.b[1]', [2]],
      ['traces.t.spans.b[2]', null],
      ['traces.t.spans.c', null],
    ]);
  });

  it('a node whose spans is not an object is flagged and its children are not visited', () => {
    const drafts = treeDrafts({ t: { spans: { a: { spans: [{ span_id: 'x' }] }, b: { spans: 'no' }, c: { spans: null } } } });
    expect(drafts.map((d) => [d.nodeName, d.invalidSpans])).toEqual([
      ['a', true],
      ['b', true],
      ['c', undefined],
    ]);
  });

  it('trace entries without a spans object contribute nothing; keys are inserted verbatim', () => {
    const drafts = treeDrafts({ a: 1, b: { spans: null }, c: {}, 'd.e': { spans: { 'x.y[0]': {} } } });
    expect(drafts.map((d) => d.path)).toEqual(['traces.d.e.spans.x.y[0]']);
  });

  it('a very deep tree does not overflow the stack', () => {
    let node: Record<string, unknown> = {};
    const root = node;
    for (let i = 0; i < 20000; i++) {
      const child = {};
      node.spans = { n: child };
      node = child;
    }
    const drafts = treeDrafts({ t: { spans: { root } } });
    expect(drafts.length).toBe(20001);
    expect(drafts[20000].parent).toBe(19999);
    expect(countTracingSpans({ form: 'tree', traces: { t: { spans: { root } } } })).toBe(20001);
  });
});

describe('countTracingSpans', () => {
  it('flat: every entry, valid or not', () => {
    expect(countTracingSpans({ form: 'flat', spans: [{}, 1, null, 'x'] })).toBe(4);
  });

  it('tree: every node incl. list elements and invalid ones; not below an invalid spans', () => {
    const traces = {
      t: { spans: { a: { spans: { b: [{}, 'x', [1]] } }, c: { spans: [{}, {}] }, d: 5 } },
      u: { spans: { e: {} } },
      v: 'ignored',
    };
    const body = { form: 'tree' as const, traces };
    expect(countTracingSpans(body)).toBe(treeDrafts(traces).length);
    expect(countTracingSpans(body)).toBe(7);
  });

  it('stops early once past the limit', () => {
    const many = Array.from({ length: 50 }, () => ({ spans: { x: [{}, {}] } }));
    const body = { form: 'tree' as const, traces: { t: { spans: { list: many } } } };
    expect(countTracingSpans(body)).toBe(150);
    const partial = countTracingSpans(body, 60);
    expect(partial).toBeGreaterThan(60);
    expect(partial).toBeLessThan(150);
  });
});
