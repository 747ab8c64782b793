// The processor around the examples: config and factory, semconv modes, metrics edge cases, optional
// propagation, spans without ag keys, and the slot order of spans that need no tree.
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { BatchOrigin } from '../../model/batch.ts';
import type { AttrValue, Span, SpanEvent } from '../../model/span.ts';
import type { NamespaceConfig } from './config.ts';
import { factory } from './factory.ts';
import { NamespaceProcessor } from './processor.ts';

const START = 1_776_363_498_000_000_000n;
let nextId = 1;
function span(attrs: Record<string, AttrValue>, extra: Partial<Span> = {}): Span {
  return {
    traceId: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', spanId: (nextId++).toString(16).padStart(16, '0'), name: 'op', kind: 1,
    startNs: START, endNs: START + 1_500_000_000n, status: { code: 0 }, attributes: new Map(Object.entries(attrs)),
    ...extra,
  };
}
const run = (spans: Span[], origin: BatchOrigin = 'tracing', config: Partial<NamespaceConfig> = {}) => {
  new NamespaceProcessor(config).process({ origin, spans, rejections: [] });
  return spans;
};
const ev = (name: string): SpanEvent => ({ name, timeNs: START, attributes: new Map() });

describe('namespace factory and config', () => {
  it('fills defaults and refuses unknown keys and values', () => {
    const ajv = new Ajv({ useDefaults: true, strict: false });
    const validate = ajv.compile(factory.schema);
    const config: Record<string, unknown> = {};
    expect(validate(config)).toBe(true);
    expect(config).toEqual({ semconv: 'otlp', propagate_metrics: false });
    expect(validate({ semconv: 'sometimes' })).toBe(false);
    expect(validate({ extra: 1 })).toBe(false);
    expect([factory.type, factory.kind]).toEqual(['namespace', 'processor']);
    const p = factory.create({ semconv: 'all', propagate_metrics: false }, { id: 'namespace', logger: console as never });
    expect(p.sync).toBe(true);
    const spans = [span({ 'gen_ai.operation.name': 'chat' })];
    p.process({ origin: 'tracing', spans, rejections: [] });
    expect(spans[0].spanType).toBe('chat');
  });
});

describe('semconv modes', () => {
  const attrs = { 'gen_ai.operation.name': 'embeddings' };
  it('otlp: only OTLP batches; all: every batch; none: never', () => {
    expect(run([span(attrs)], 'otlp')[0].spanType).toBe('embedding');
    expect(run([span(attrs)], 'tracing')[0].spanType).toBe('task');
    expect(run([span(attrs)], 'tracing', { semconv: 'all' })[0].spanType).toBe('embedding');
    expect(run([span(attrs)], 'otlp', { semconv: 'none' })[0].spanType).toBe('task');
  });
});

describe('computed metrics', () => {
  it('no duration for zero or negative length; exact double; errors only when events exist', () => {
    const [a, b, c, d] = run([
      span({}, { endNs: START }),
      span({ 'ag.metrics.duration.cumulative': 3 }, { endNs: START - 1n }),
      span({ 'ag.metrics.errors.incremental': 4 }, { endNs: START + 1_234_567n, events: [] }),
      span({ 'ag.metrics.errors.incremental': 4 }, { events: [ev('log')] }),
    ]);
    expect(a.attributes.has('ag.metrics.duration.cumulative')).toBe(false);
    expect(b.attributes.get('ag.metrics.duration.cumulative')).toBe(3);
    expect(c.attributes.get('ag.metrics.duration.cumulative')).toBe(1.234567);
    expect(c.attributes.get('ag.metrics.errors.incremental')).toBe(4);
    expect(d.attributes.get('ag.metrics.errors.incremental')).toBe(0);
  });
});

describe('spans without ag keys, and odd input', () => {
  it('a span without ag keys gets the computed keys first and keeps its own keys and values as they were', () => {
    const big = 2n ** 60n;
    const s = span({ 'http.method': 'GET', 'n': big, 'list': ['a', 1] }, { events: [ev('exception')] });
    const resource = new Map([['service.name', 'x']]);
    s.resource = resource;
    run([s]);
    expect([...s.attributes]).toEqual([
      ['ag.type.span', 'task'], ['ag.type.trace', 'invocation'], ['ag.metrics.duration.cumulative', 1500],
      ['ag.metrics.errors.incremental', 1], ['http.method', 'GET'], ['n', big], ['list', ['a', 1]],
    ]);
    expect(s.resource).toBe(resource);
  });

  it('an empty batch is fine and nothing throws on odd input', () => {
    expect(() => run([])).not.toThrow();
    const s = span({ ag: 'x', 'ag.type.span': 'llm', 'ag.data.inputs': '@ag.type=json:{"a":', 'ag.': 1, 'ag..x': 2 });
    run([s]);
    expect([...s.attributes]).toEqual([
      ['ag.type.span', 'llm'], ['ag.type.trace', 'invocation'], ['ag.metrics.duration.cumulative', 1500],
      // S5 quarantine, then S6 (`ag..x` lies below the value of `ag.`), then S7 (`ag.` is an unknown key).
      ['ag.unsupported.data.inputs', '@ag.type=json:{"a":'], ['ag.unsupported._shadowed..x', 2],
      ['ag.unsupported.', 1], ['ag.unsupported._invalid', 'x'],
    ]);
  });
});

describe('propagate_metrics (§4.3)', () => {
  it('sums tokens, costs and errors bottom-up within a trace; unattached spans keep their values', () => {
    const root = span({ 'ag.metrics.tokens.incremental.prompt': 1 });
    const child = span({ 'ag.metrics.tokens.incremental.prompt': 2, 'ag.metrics.tokens.incremental.completion': 3,
      'ag.metrics.costs.incremental.total': 0.5 }, { parentId: root.spanId, startNs: START + 1n, events: [ev('exception')] });
    const grandchild = span({ 'ag.metrics.tokens.incremental.total': 10 }, { parentId: child.spanId, startNs: START + 2n });
    const orphan = span({ 'ag.metrics.tokens.incremental.prompt': 7, 'ag.metrics.tokens.cumulative.prompt': 99 },
      { parentId: 'ffffffffffffffff' });
    const early = span({ 'ag.metrics.tokens.incremental.prompt': 5 }, { parentId: root.spanId, startNs: START - 1n });
    run([grandchild, child, root, orphan, early], 'tracing', { propagate_metrics: true });
    const cum = (s: Span) => [...s.attributes].filter(([k]) => k.includes('cumulative') && !k.includes('duration'));
    expect(cum(root)).toEqual([
      ['ag.metrics.errors.cumulative', 1],
      ['ag.metrics.tokens.cumulative.prompt', 3], ['ag.metrics.tokens.cumulative.completion', 3],
      ['ag.metrics.tokens.cumulative.total', 10],
      ['ag.metrics.costs.cumulative.prompt', 0], ['ag.metrics.costs.cumulative.completion', 0],
      ['ag.metrics.costs.cumulative.total', 0.5],
    ]);
    expect(cum(grandchild)).toEqual([
      ['ag.metrics.tokens.cumulative.prompt', 0], ['ag.metrics.tokens.cumulative.completion', 0],
      ['ag.metrics.tokens.cumulative.total', 10],
    ]);
    expect(cum(orphan)).toEqual([['ag.metrics.tokens.cumulative.prompt', 99]]);
    expect(cum(early)).toEqual([]);
  });

  it('is off by default', () => {
    const root = span({ 'ag.metrics.tokens.incremental.prompt': 1 });
    run([root]);
    expect([...root.attributes].some(([k]) => k.startsWith('ag.metrics.tokens.cumulative'))).toBe(false);
  });
});

describe('odd attribute keys on the semantic-convention path', () => {
  it('an empty key or a non-ASCII first character is kept verbatim and never throws', () => {
    for (const origin of ['otlp', 'tracing'] as const) {
      const [s] = run([span({ '': 'empty', 'é.x': 1, 'gen_ai.operation.name': 'chat' })], origin, { semconv: 'all' });
      expect(s.attributes.get('')).toBe('empty');
      expect(s.attributes.get('é.x')).toBe(1);
      expect(s.spanType).toBe('chat');
    }
  });
});

describe('slot order without a tree (§1.3, §3.6)', () => {
  it('writes a slot whose keys come in interrupted groups in unflatten order, and a second run changes nothing', () => {
    // What an OpenAI instrumentation sends: gen_ai maps response.model, then the request parameters, then
    // response.id, so ag.meta's `response` group is interrupted by `request`; explicit keys and the fields
    // of one reference apart, too.
    const s = span({
      'gen_ai.operation.name': 'chat', 'gen_ai.response.model': 'gpt-4o-2024-08-06', 'gen_ai.request.temperature': 0.2,
      'gen_ai.request.max_tokens': 1024, 'gen_ai.response.id': 'chatcmpl-1',
      'ag.data.inputs.a.x': 1, 'ag.data.inputs.b': 2, 'ag.data.inputs.a.y': 3,
      'ag.references.application.id': '4bf92f35-77b3-4da6-a3ce-929d0e0e4736', 'ag.references.evaluator.slug': 'judge',
      'ag.references.application.slug': 'my-app',
    });
    const p = new NamespaceProcessor();
    const want: [string, AttrValue][] = [
      ['ag.type.span', 'chat'], ['ag.type.trace', 'invocation'],
      ['ag.data.inputs.a.x', 1], ['ag.data.inputs.a.y', 3], ['ag.data.inputs.b', 2],
      ['ag.metrics.duration.cumulative', 1500],
      ['ag.references.application.id', '4bf92f35-77b3-4da6-a3ce-929d0e0e4736'],
      ['ag.references.application.slug', 'my-app'], ['ag.references.evaluator.slug', 'judge'],
      // in gen_ai's row order, each group together
      ['ag.meta.response.model', 'gpt-4o-2024-08-06'], ['ag.meta.response.id', 'chatcmpl-1'],
      ['ag.meta.request.max_tokens', 1024], ['ag.meta.request.temperature', 0.2],
      ['gen_ai.operation.name', 'chat'], ['gen_ai.response.model', 'gpt-4o-2024-08-06'],
      ['gen_ai.request.temperature', 0.2], ['gen_ai.request.max_tokens', 1024], ['gen_ai.response.id', 'chatcmpl-1'],
    ];
    for (let round = 0; round < 3; round++) {
      // Twice on the same processor (its memos then hold this key sequence), then the output fed back.
      p.process({ origin: 'otlp', spans: [s], rejections: [] });
      expect([...s.attributes]).toEqual(want);
      expect(s.references?.map((r) => [r.attributes.get('key'), r.id, r.slug])).toEqual([
        ['application', '4bf92f35-77b3-4da6-a3ce-929d0e0e4736', 'my-app'], ['evaluator', undefined, 'judge'],
      ]);
      if (round === 1) s.attributes = new Map(Object.entries(Object.fromEntries(want)));
    }
  });

  it('gives the same slots after its key memo filled and was cleared, long keys included', () => {
    // More distinct keys than the processor's key memo holds (4096), some longer than it keeps, then the
    // first spans again. Each output is the slot order of §3.6 with the keys as sent.
    const roots = ['ag.data.inputs', 'ag.meta', 'ag.flags', 'ag.data.internals', 'ag.tags'];
    const keysOf = (i: number) => roots.map((r) => `${r}.k${i}${i % 50 === 0 ? 'x'.repeat(130) : ''}`);
    const indexes = [...Array.from({ length: 1200 }, (_, i) => i), ...Array.from({ length: 10 }, (_, i) => i)];
    const spans = indexes.map((i) => span(Object.fromEntries(keysOf(i).map((k) => [k, `v${i}`]))));
    run(spans);
    spans.forEach((s, n) => {
      const [inputs, meta, flags, internals, tags] = keysOf(indexes[n]);
      const v = `v${indexes[n]}`;
      expect([...s.attributes]).toEqual([
        ['ag.type.span', 'task'], ['ag.type.trace', 'invocation'], [inputs, v], [internals, v],
        ['ag.metrics.duration.cumulative', 1500], [flags, v], [tags, v], [meta, v],
      ]);
    });
  });
});

describe('semantic conventions on span after span', () => {
  const many = (attrs: Record<string, AttrValue>) => run(Array.from({ length: 4 }, () => span(attrs)), 'otlp');

  it('a key a higher family mapped to null (claiming nothing) is mapped again by a lower family, in its place', () => {
    // gen_ai copies a null conversation id to ag.session.id, where null means absent; OpenInference's
    // session.id then lands on the same key.
    for (const s of many({ 'gen_ai.operation.name': 'chat', 'gen_ai.conversation.id': null, 'session.id': 'sess-1' })) {
      expect(s.attributes.get('ag.session.id')).toBe('sess-1');
      expect(s.sessionId).toBe('sess-1');
    }
  });

  it('a prefix row whose target an earlier row of its family already wrote keeps the earlier value', () => {
    // OpenLLMetry's entity input lands a prompt message below ag.data.inputs; its gen_ai.prompt prefix row,
    // later in the family, maps onto the same key.
    for (const s of many({
      'traceloop.entity.input': '{"inputs":{"prompt":{"0":{"content":"from entity"}}}}',
      'gen_ai.prompt.0.content': 'from prefix',
      'gen_ai.prompt.0.role': 'user',
    })) {
      expect(s.attributes.get('ag.data.inputs.prompt.0.content')).toBe('from entity');
      expect(s.attributes.get('ag.data.inputs.prompt.0.role')).toBe('user');
    }
  });

  it('a family that writes a data slot gets S5: a JSON object string there is decoded', () => {
    for (const s of many({ 'ag.type.span': 'llm', 'openinference.span.kind': 'LLM', 'input.value': '{"q":"hi"}' })) {
      expect(s.attributes.get('ag.data.inputs.q')).toBe('hi');
      expect(s.attributes.has('ag.unsupported.data.inputs')).toBe(false);
    }
  });
});
