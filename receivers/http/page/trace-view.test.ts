import { describe, expect, it } from 'vitest';
import { escapeHtml, html } from './html.ts';
import { spansInOrder } from '../../../model/read-trace.ts';
import { otherAttributes, summarise } from './trace-view.ts';

describe('html', () => {
  it('escapes every value, in arrays too, and keeps only markup made by html', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    const name = '<script>alert(1)</script>';
    const item = html`<li>${name}</li>`;
    expect(html`<ul>${[item, name]}</ul>`.text).toBe('<ul><li>&lt;script&gt;alert(1)&lt;/script&gt;</li>&lt;script&gt;alert(1)&lt;/script&gt;</ul>');
    expect(html`${undefined}${null}${false}${0}${12n}`.text).toBe('012');
  });
});

describe('trace view', () => {
  const map = {
    late: { span_id: 'd', parent_id: 'f', span_name: 'late', start_time: '2026-04-16T18:18:17Z', end_time: '2026-04-16T18:18:17.5Z' },
    agent: {
      span_id: 'a', span_name: 'agent', start_time: '2026-04-16T18:18:18Z', end_time: '2026-04-16T18:18:20.123456789Z',
      attributes: { ag: { metrics: { tokens: { cumulative: { total: 99 } } } } },
      spans: {
        llm: [
          { span_id: 'b', span_name: 'llm', status_code: 'STATUS_CODE_ERROR', spans: { tool: { span_id: 'e', span_name: 'tool' } } },
          { span_id: 'c', span_name: 'llm', attributes: { ag: { metrics: { tokens: { incremental: { total: 5 } } } } } },
        ],
      },
    },
  };

  it('walks a trace map in pre-order with depths, same-name siblings in their list order', () => {
    expect(spansInOrder(map).map(({ span, depth }) => [span.span_id, depth])).toEqual([['d', 0], ['a', 0], ['b', 1], ['e', 2], ['c', 1]]);
    expect(spansInOrder(map)[1].span).not.toHaveProperty('spans');
  });

  it('orders siblings by start time, then span id, not by the map\'s keys (integer-like names come first in an object)', () => {
    const span = (id: string, name: string, second: number) => ({ span_id: id, span_name: name, start_time: `2026-04-16T18:18:0${second}Z` });
    // As a JSON answer arrives: JSON.parse puts the keys `10` and `2` before `b` and `a`, whatever was written.
    const spans = JSON.parse(JSON.stringify({
      root: { ...span('r', 'root', 0), spans: { b: [span('b2', 'b', 1), span('b1', 'b', 1)], 2: span('n2', '2', 4), a: span('a1', 'a', 2), 10: span('n10', '10', 3) } },
    })) as Record<string, unknown>;
    expect(Object.keys((spans.root as { spans: object }).spans)).toEqual(['2', '10', 'b', 'a']);
    expect(spansInOrder(spans).map(({ span }) => span.span_name)).toEqual(['root', 'b', 'b', 'a', '10', '2']);
    expect(spansInOrder(spans).map(({ span }) => span.span_id).slice(1, 3)).toEqual(['b1', 'b2']);
  });

  it('summarises from the earliest start to the latest end, errors of any span, tokens of the root', () => {
    const summary = summarise('t', spansInOrder(map));
    // Named after the root, not the earlier orphan; its cumulative tokens win over the spans' own.
    expect(summary).toMatchObject({ name: 'agent', durationMs: 3123.456789, status: 'error', errors: 1, spans: 5, tokens: 99, cost: undefined });
    // Without a cumulative total on the root, the incremental totals are added up.
    const { attributes: _, ...bare } = map.agent;
    expect(summarise('t', spansInOrder({ agent: bare })).tokens).toBe(5);
  });

  it('leaves inputs, outputs and metrics out of the other attributes', () => {
    expect(otherAttributes({ ag: { data: { inputs: 1, outputs: 2, internals: 3 }, metrics: {}, type: { span: 'llm' } }, x: 1 }))
      .toEqual({ ag: { type: { span: 'llm' }, data: { internals: 3 } }, x: 1 });
    expect(otherAttributes({ ag: { data: { inputs: 1 } }, x: 1 })).toEqual({ x: 1 });
  });
});
