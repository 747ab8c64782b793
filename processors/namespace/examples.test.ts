// ag-namespace.md §8: every example, exact and in key order, plus idempotence of every output.
import { describe, expect, it } from 'vitest';
import { flattenObject } from '../../model/attributes/flatten.ts';
import { nestedShape } from '../../model/attributes/unflatten.ts';
import type { BatchOrigin, WorkingBatch } from '../../model/batch.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { AttrValue, Span, SpanEvent } from '../../model/span.ts';
import type { NamespaceConfig } from './config.ts';
import { NamespaceProcessor } from './processor.ts';

const START = BigInt(Date.parse('2026-04-16T18:18:18Z')) * 1_000_000n;
const END = START + 1_500_000_000n;
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

let nextId = 1;
function span(attributes: Record<string, unknown>, extra: Partial<Span> = {}): Span {
  return {
    traceId: TRACE,
    spanId: (nextId++).toString(16).padStart(16, '0'),
    name: 'op',
    kind: 1,
    startNs: START,
    endNs: END,
    status: { code: 0 },
    attributes: flattenObject(attributes),
    ...extra,
  };
}

function run(spans: Span[], origin: BatchOrigin = 'tracing', config: Partial<NamespaceConfig> = {}): Span[] {
  const batch: WorkingBatch = { origin, spans };
  new NamespaceProcessor(config).process(batch);
  return batch.spans;
}

const entries = (s: Span) => [...s.attributes.entries()];
const expected = (o: Record<string, AttrValue>) => Object.entries(o);

/** A copy of a processed span, as a client would post it back (attributes and derived fields kept). */
function clone(s: Span): Span {
  return {
    ...s,
    attributes: new AttributeList(s.attributes),
    references: s.references?.map((r) => ({ ...r, attributes: new AttributeList(r.attributes) })),
  };
}

/** Runs the processor again on copies of `spans` and checks nothing changes, key order included. */
function expectIdempotent(spans: Span[], origin: BatchOrigin = 'tracing', config: Partial<NamespaceConfig> = {}) {
  const again = run(spans.map(clone), origin, config);
  for (let i = 0; i < spans.length; i++) {
    expect(entries(again[i])).toEqual(entries(spans[i]));
    expect([again[i].spanType, again[i].traceType, again[i].sessionId, again[i].userId]).toEqual([
      spans[i].spanType, spans[i].traceType, spans[i].sessionId, spans[i].userId,
    ]);
    expect(again[i].references).toEqual(spans[i].references);
  }
}

const event = (name: string): SpanEvent => ({ name, timeNs: START + 1n, attributes: new AttributeList() });

describe('ag-namespace §8 examples', () => {
  it('E1 flatten at the edge, nested shape back', () => {
    const [s] = run([span({
      ag: { type: { span: 'llm' }, data: { inputs: { docs: [{ text: 'a' }, { text: 'b' }], ids: [1, 2] } } },
      http: { method: 'POST' }, 'http.route': '/x',
    })]);
    expect(entries(s)).toEqual(expected({
      'ag.type.span': 'llm', 'ag.type.trace': 'invocation', 'ag.data.inputs.docs.0.text': 'a',
      'ag.data.inputs.docs.1.text': 'b', 'ag.data.inputs.ids': [1, 2], 'ag.metrics.duration.cumulative': 1500,
      'http.method': 'POST', 'http.route': '/x',
    }));
    expect(nestedShape(s.attributes)).toEqual({
      ag: {
        type: { span: 'llm', trace: 'invocation' },
        data: { inputs: { docs: [{ text: 'a' }, { text: 'b' }], ids: [1, 2] } },
        metrics: { duration: { cumulative: 1500 } },
      },
      http: { method: 'POST', route: '/x' },
    });
    expect([s.spanType, s.traceType]).toEqual(['llm', 'invocation']);
    expectIdempotent([s]);
  });

  it('E3 JSON strings in data slots', () => {
    const [s] = run([span({
      'ag.data.inputs': '{"q":"hi"}', 'ag.data.parameters': '[1,2]', 'ag.data.internals': 'not json',
      'ag.data.outputs': '{"a":1}',
    })]);
    expect(entries(s)).toEqual(expected({
      'ag.type.span': 'task', 'ag.type.trace': 'invocation', 'ag.data.inputs.q': 'hi', 'ag.data.outputs': '{"a":1}',
      'ag.metrics.duration.cumulative': 1500, 'ag.unsupported.data.parameters': '[1,2]',
      'ag.unsupported.data.internals': 'not json',
    }));
    expectIdempotent([s]);
  });

  const e4 = {
    'ag.type.span': 'llm', 'ag.data.inputs': '{"q":"hi"}', 'ag.data.outputs': 'hello',
    'ag.metrics.tokens.incremental.prompt': 5, 'ag.session.id': 's-1', 'ag.custom': 1, 'gen_ai.request.model': 'gpt-4o',
  };

  it('E4 typical client span (http)', () => {
    const [s] = run([span(e4)]);
    expect(entries(s)).toEqual(expected({
      'ag.type.span': 'llm', 'ag.type.trace': 'invocation', 'ag.data.inputs.q': 'hi', 'ag.data.outputs': 'hello',
      'ag.metrics.duration.cumulative': 1500, 'ag.metrics.tokens.incremental.prompt': 5, 'ag.session.id': 's-1',
      'ag.unsupported.custom': 1, 'gen_ai.request.model': 'gpt-4o',
    }));
    expect(s.sessionId).toBe('s-1');
    expectIdempotent([s]);
  });

  it('E4 typical client span (otlp) gains the mapped model', () => {
    const [s] = run([span(e4)], 'otlp');
    expect(entries(s)).toEqual(expected({
      'ag.type.span': 'llm', 'ag.type.trace': 'invocation', 'ag.data.inputs.q': 'hi', 'ag.data.outputs': 'hello',
      'ag.metrics.duration.cumulative': 1500, 'ag.metrics.tokens.incremental.prompt': 5, 'ag.session.id': 's-1',
      'ag.meta.request.model': 'gpt-4o', 'ag.unsupported.custom': 1, 'gen_ai.request.model': 'gpt-4o',
    }));
    expectIdempotent([s], 'otlp');
  });

  it('E5 span type precedence', () => {
    const [a, b, c] = run([
      span({ 'ag.type.span': 'robot', 'ag.type.color': 'red' }, { spanType: 'tool' }),
      span({ 'ag.type.span': 'chat' }, { spanType: 'tool' }),
      span({}),
    ]);
    expect(entries(a)).toEqual(expected({
      'ag.type.span': 'tool', 'ag.type.trace': 'invocation', 'ag.metrics.duration.cumulative': 1500,
      'ag.unsupported.type.span': 'robot', 'ag.unsupported.type.color': 'red',
    }));
    expect([a.spanType, b.spanType, c.spanType]).toEqual(['tool', 'chat', 'task']);
    expect(b.attributes.get('ag.type.span')).toBe('chat');
    expect(c.attributes.get('ag.type.span')).toBe('task');
    expectIdempotent([a, b, c]);
  });

  it('E6 trace type, one batch', () => {
    const t1 = '11111111111111111111111111111111';
    const t2 = '22222222222222222222222222222222';
    const t3 = '33333333333333333333333333333333';
    const A = span({}, { traceId: t1, links: [] });
    const B = span({}, { traceId: t1, parentId: A.spanId });
    const C = span({}, { traceId: t2, traceType: 'annotation' });
    const D = span({ 'ag.type.trace': 'unknown' }, { traceId: t3 });
    const E = span({ 'ag.type.trace': 'sideways' }, { traceId: t3 });
    run([A, B, C, D, E]);
    expect([A, B, C, D, E].map((s) => s.traceType)).toEqual(['annotation', 'annotation', 'annotation', 'invocation', 'invocation']);
    expect([A, B, C, D, E].map((s) => s.attributes.get('ag.type.trace'))).toEqual(
      ['annotation', 'annotation', 'annotation', 'invocation', 'invocation']);
    expect(D.attributes.has('ag.unsupported.type.trace')).toBe(false);
    expect(entries(E)).toEqual(expected({
      'ag.type.span': 'task', 'ag.type.trace': 'invocation', 'ag.metrics.duration.cumulative': 1500,
      'ag.unsupported.type.trace': 'sideways',
    }));
    expectIdempotent([A, B, C, D, E]);
  });

  it('E7 references and legacy refs', () => {
    const [s] = run([span({
      'ag.references.application.id': '4BF92F35-77B3-4DA6-A3CE-929D0E0E4736', 'ag.references.application.slug': 'my app',
      'ag.references.evaluator.version': 3, 'ag.references.widget.id': 'w1', 'ag.refs.variant.slug': 'v-1',
    })]);
    expect(entries(s)).toEqual(expected({
      'ag.type.span': 'task', 'ag.type.trace': 'invocation', 'ag.metrics.duration.cumulative': 1500,
      'ag.references.application.id': '4bf92f35-77b3-4da6-a3ce-929d0e0e4736', 'ag.references.evaluator.version': '3',
      'ag.references.application_variant.slug': 'v-1',
      'ag.unsupported.references.application.slug': 'my app', 'ag.unsupported.references.widget.id': 'w1',
    }));
    expect(s.references).toEqual([
      { id: '4bf92f35-77b3-4da6-a3ce-929d0e0e4736', attributes: new AttributeList([['key', 'application']]) },
      { version: '3', attributes: new AttributeList([['key', 'evaluator']]) },
      { slug: 'v-1', attributes: new AttributeList([['key', 'application_variant']]) },
    ]);
    expectIdempotent([s]);
  });

  const e8 = {
    'ag.flags.is_custom': 1, 'ag.flags.level': 5, 'ag.tags.env': 'prod', 'ag.tags.list': ['a'],
    'ag.meta.configuration.temperature': 0.2, 'ag.meta.reviewer': 'r1', 'ag.selector.k': 'v', 'ag.selector.n': 2,
  };

  it('E8 flags, tags, meta.configuration, selector', () => {
    const [s] = run([span(e8)]);
    expect(entries(s)).toEqual(expected({
      'ag.type.span': 'task', 'ag.type.trace': 'invocation', 'ag.data.parameters.temperature': 0.2,
      'ag.metrics.duration.cumulative': 1500, 'ag.flags.is_custom': true, 'ag.tags.env': 'prod',
      'ag.meta.reviewer': 'r1', 'ag.selector.k': 'v', 'ag.unsupported.flags.level': 5,
      'ag.unsupported.tags.list': ['a'], 'ag.unsupported.selector.n': 2,
    }));
    expectIdempotent([s]);
  });

  it('E8 with explicit parameters: meta.configuration is quarantined first', () => {
    const [s] = run([span({ ...e8, 'ag.data.parameters.model': 'x' })]);
    expect(entries(s)).toEqual(expected({
      'ag.type.span': 'task', 'ag.type.trace': 'invocation', 'ag.data.parameters.model': 'x',
      'ag.metrics.duration.cumulative': 1500, 'ag.flags.is_custom': true, 'ag.tags.env': 'prod',
      'ag.meta.reviewer': 'r1', 'ag.selector.k': 'v', 'ag.unsupported.meta.configuration.temperature': 0.2,
      'ag.unsupported.flags.level': 5, 'ag.unsupported.tags.list': ['a'], 'ag.unsupported.selector.n': 2,
    }));
    expectIdempotent([s]);
  });

  it('E9 metrics', () => {
    const [s] = run([span({
      'ag.metrics.duration.incremental.total': 7, 'ag.metrics.errors.cumulative': true,
      'ag.metrics.tokens.incremental.prompt': '5', 'ag.metrics.unit.tokens.completion': 3, 'ag.metrics.latency': 9,
    }, { events: [event('exception'), event('log')] })]);
    expect(entries(s)).toEqual(expected({
      'ag.type.span': 'task', 'ag.type.trace': 'invocation', 'ag.metrics.duration.incremental': 7,
      'ag.metrics.duration.cumulative': 1500, 'ag.metrics.errors.incremental': 1,
      'ag.metrics.tokens.incremental.completion': 3, 'ag.unsupported.metrics.errors.cumulative': true,
      'ag.unsupported.metrics.tokens.incremental.prompt': '5', 'ag.unsupported.metrics.latency': 9,
    }));
    expectIdempotent([s]);
  });

  const e10 = {
    'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 10,
    'gen_ai.usage.output_tokens': 5, 'gen_ai.input.messages': '[{"role":"user","content":"hi"}]',
  };

  it('E10 OTLP, gen_ai', () => {
    const [s] = run([span(e10)], 'otlp');
    expect(entries(s)).toEqual(expected({
      'ag.type.span': 'chat', 'ag.type.trace': 'invocation', 'ag.data.inputs.prompt.0.role': 'user',
      'ag.data.inputs.prompt.0.content': 'hi', 'ag.metrics.duration.cumulative': 1500,
      'ag.metrics.tokens.incremental.prompt': 10, 'ag.metrics.tokens.incremental.completion': 5,
      'ag.metrics.tokens.incremental.total': 15, 'ag.meta.request.model': 'gpt-4o', ...e10,
    }));
    expect(s.spanType).toBe('chat');
    expectIdempotent([s], 'otlp');
  });

  it('E10 over http (default semconv: otlp) maps nothing', () => {
    const [s] = run([span(e10)]);
    expect(entries(s)).toEqual(expected({
      'ag.type.span': 'task', 'ag.type.trace': 'invocation', 'ag.metrics.duration.cumulative': 1500, ...e10,
    }));
    expect(s.spanType).toBe('task');
  });

  it('E11 OTLP, OpenInference chat span', () => {
    const src = {
      'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o', 'input.value': '{"question":"hi"}',
      'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': 'hi',
      'output.value': 'hello', 'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': 'hello', 'llm.token_count.prompt': 3, 'llm.token_count.completion': 1,
    };
    const [s] = run([span(src)], 'otlp');
    expect(entries(s)).toEqual(expected({
      'ag.type.span': 'chat', 'ag.type.trace': 'invocation', 'ag.data.inputs.prompt.0.role': 'user',
      'ag.data.inputs.prompt.0.content': 'hi', 'ag.data.outputs.completion.0.role': 'assistant',
      'ag.data.outputs.completion.0.content': 'hello', 'ag.metrics.duration.cumulative': 1500,
      'ag.metrics.tokens.incremental.prompt': 3, 'ag.metrics.tokens.incremental.completion': 1,
      'ag.meta.request.model': 'gpt-4o', 'ag.meta.response.model': 'gpt-4o', ...src,
    }));
    expectIdempotent([s], 'otlp');
  });

  it('E12 OTLP, Vercel AI tool call', () => {
    const src = {
      'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'search', 'ai.toolCall.args': '{"q":"x"}',
      'ai.toolCall.result': '["r1","r2"]',
    };
    const [s] = run([span(src)], 'otlp');
    expect(entries(s)).toEqual(expected({
      'ag.type.span': 'tool', 'ag.type.trace': 'invocation', 'ag.data.inputs.name': 'search',
      'ag.data.inputs.args.q': 'x', 'ag.data.outputs': ['r1', 'r2'], 'ag.metrics.duration.cumulative': 1500, ...src,
    }));
    expectIdempotent([s], 'otlp');
  });

  it('E13 OTLP, explicit ag wins, @ag.type=json:, resource and scope untouched', () => {
    const resource = new AttributeList([['service.name', 'shop']]);
    const scope = { name: 'agenta', version: '0.50.0' };
    const [s] = run([span({
      'ag.type.node': 'Workflow', 'ag.data.inputs': '@ag.type=json:{"q":"hi"}', 'ag.meta.request.model': 'mine',
      'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o',
    }, { resource, scope })], 'otlp');
    expect(entries(s)).toEqual(expected({
      'ag.type.span': 'workflow', 'ag.type.trace': 'invocation', 'ag.data.inputs.q': 'hi',
      'ag.metrics.duration.cumulative': 1500, 'ag.meta.request.model': 'mine',
      'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o',
    }));
    expect(s.resource).toBe(resource);
    expect([...(s.resource as Map<string, AttrValue>)]).toEqual([['service.name', 'shop']]);
    expect(s.scope).toEqual({ name: 'agenta', version: '0.50.0' });
    expect(s.spanType).toBe('workflow');
    expectIdempotent([s], 'otlp');
  });

  it('E14 identity promotion', () => {
    const R = span({ 'ag.session.id': 's-9', 'ag.user.id': 42, 'ag.session.extra': 'x' }, { userId: 'u-old' });
    const C = span({ 'ag.session.id': 's-x' }, { parentId: R.spanId, sessionId: 'c-1' });
    const R2 = span({}, { sessionId: 'keep' });
    run([R, C, R2]);
    expect([R.sessionId, R.userId]).toEqual(['s-9', '42']);
    expect(entries(R)).toEqual(expected({
      'ag.type.span': 'task', 'ag.type.trace': 'invocation', 'ag.metrics.duration.cumulative': 1500,
      'ag.session.id': 's-9', 'ag.user.id': '42', 'ag.unsupported.session.extra': 'x',
    }));
    expect(C.sessionId).toBe('c-1');
    expect(C.attributes.get('ag.session.id')).toBe('s-x');
    expect(R2.sessionId).toBe('keep');
    expectIdempotent([R, C, R2]);
  });

  it('E15 shadowing and idempotence', () => {
    const [s] = run([span({ 'ag.data.outputs': 'text', 'ag.data.outputs.toolCalls.0.id': 'c1', a: 1, 'a.b': 2 })]);
    expect(entries(s)).toEqual(expected({
      'ag.type.span': 'task', 'ag.type.trace': 'invocation', 'ag.data.outputs': 'text',
      'ag.metrics.duration.cumulative': 1500, 'ag.unsupported._shadowed.data.outputs.toolCalls.0.id': 'c1',
      a: 1, 'a.b': 2,
    }));
    const nested = nestedShape(s.attributes) as { ag: { unsupported: unknown } };
    expect(nested.ag.unsupported).toEqual({ _shadowed: { data: { outputs: { toolCalls: [{ id: 'c1' }] } } } });
    expect(nested).toMatchObject({ a: 1, _shadowed: { 'a.b': 2 } });
    expectIdempotent([s]);
  });
});
