// The processor around the examples: config and factory, semconv modes, metrics edge cases, optional
// propagation, and spans without ag keys.
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { BatchOrigin } from '../../model/batch.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { AttrValue, Span, SpanEvent } from '../../model/span.ts';
import type { NamespaceConfig } from './config.ts';
import { factory } from './factory.ts';
import { syncChain } from '../../pipeline/component.ts';
import { NamespaceProcessor } from './processor.ts';

const START = 1_776_363_498_000_000_000n;
let nextId = 1;
function span(attrs: Record<string, AttrValue>, extra: Partial<Span> = {}): Span {
  return {
    traceId: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', spanId: (nextId++).toString(16).padStart(16, '0'), name: 'op', kind: 1,
    startNs: START, endNs: START + 1_500_000_000n, status: { code: 0 }, attributes: new AttributeList(Object.entries(attrs)),
    ...extra,
  };
}
/** The processor as a pipeline runs it (with its propagate_metrics step). */
const run = (spans: Span[], origin: BatchOrigin = 'tracing', config: Partial<NamespaceConfig> = {}) => {
  for (const step of syncChain([new NamespaceProcessor(config)])) step.process({ origin, spans });
  return spans;
};
const ev = (name: string): SpanEvent => ({ name, timeNs: START, attributes: new AttributeList() });

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
    p.process({ origin: 'tracing', spans });
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

describe('spans without ag keys', () => {
  it('a span without ag keys gets the computed keys first and keeps its own keys and values as they were', () => {
    const big = 2n ** 60n;
    const s = span({ 'http.method': 'GET', 'n': big, 'list': ['a', 1] }, { events: [ev('exception')] });
    const resource = new AttributeList([['service.name', 'x']]);
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
