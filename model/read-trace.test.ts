import { describe, expect, it } from 'vitest';
import { spansInOrder } from './read-trace.ts';

describe('spansInOrder', () => {
  it('gives every span of a trace map: top level, nested, and same-name lists', () => {
    const leaf = { span_id: 'x' };
    expect(spansInOrder({ late: leaf, agent: { span_id: 'a', spans: { llm: [leaf, { ...leaf, spans: { tool: leaf } }] } }, feedback: leaf })).toHaveLength(6);
    expect(spansInOrder(undefined)).toHaveLength(0);
  });
});
