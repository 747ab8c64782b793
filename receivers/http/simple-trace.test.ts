import { describe, expect, it } from 'vitest';
import { checkSimpleTrace, simpleTraceSpan, type SimpleTrace } from './simple-trace.ts';

const NOW = '1776363498123456789';

function checked(trace: unknown): SimpleTrace {
  const result = checkSimpleTrace(JSON.parse(JSON.stringify({ trace })));
  if (Array.isArray(result)) throw new Error(JSON.stringify(result));
  return result;
}

describe('simpleTraceSpan (ingest-api.md §8.2)', () => {
  it('builds one root span: ids, name, kinds, times, type, nested ag attributes, links', () => {
    const trace = checked({
      origin: 'human', kind: 'eval', channel: 'web', data: { outputs: 1 }, tags: { t: 'x' }, meta: { m: 1 },
      references: { evaluator: { slug: 'judge', id: null } },
      links: { inv: { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7', attributes: { ignored: true } } },
    });
    expect(simpleTraceSpan(trace, 'a'.repeat(32), 'b'.repeat(16), NOW)).toEqual({
      trace_id: 'a'.repeat(32),
      span_id: 'b'.repeat(16),
      span_name: 'judge',
      span_kind: 'SPAN_KIND_UNSPECIFIED',
      status_code: 'STATUS_CODE_UNSET',
      start_time: NOW,
      end_time: NOW,
      span_type: 'task',
      attributes: { ag: {
        type: { span: 'task' }, flags: { is_feedback: true, is_evaluation: true, is_web: true },
        tags: { t: 'x' }, meta: { m: 1 }, data: { outputs: 1 }, references: { evaluator: { slug: 'judge' } },
      } },
      links: [{ trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7', attributes: { key: 'inv' } }],
    });
  });

  it('leaves out absent parts and empty flags; links [] when none given', () => {
    const span = simpleTraceSpan(checked({ origin: 'auto', data: {} }), 'a'.repeat(32), 'b'.repeat(16), NOW);
    expect(span.attributes).toEqual({ ag: { type: { span: 'task' }, data: {} } });
    expect(span.links).toEqual([]);
    expect(span.span_name).toBe('annotation');
  });

  it('keeps a `__proto__` reference key as a key', () => {
    const trace = checkSimpleTrace(JSON.parse('{"trace":{"data":{},"references":{"__proto__":{"x":1},"testset":null}}}'));
    const span = simpleTraceSpan(trace as SimpleTrace, 'a'.repeat(32), 'b'.repeat(16), NOW);
    const refs = ((span.attributes as { ag: { references: object } }).ag.references);
    expect(Object.keys(refs)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(refs)).toBe(Object.prototype);
  });
});
