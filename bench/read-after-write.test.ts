import { describe, expect, it } from 'vitest';
import { spansInTraceMap } from './read-after-write.ts';

describe('store-read-after-write', () => {
  it('counts every span of a trace map: top level, nested, and same-name lists', () => {
    const leaf = { span_id: 'x' };
    expect(spansInTraceMap({ late: leaf, agent: { span_id: 'a', spans: { llm: [leaf, { ...leaf, spans: { tool: leaf } }] } }, feedback: leaf })).toBe(6);
    expect(spansInTraceMap(undefined)).toBe(0);
  });
});
