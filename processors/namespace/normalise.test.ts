// Properties of the namespace processor on random and realistic spans (ag-namespace.md §2): every output
// is a fixed point (running the processor again changes nothing, key order included), and a span's output
// does not depend on what the processor saw before it (its plans, key codes and scratch are state it keeps
// from span to span: a fresh processor is the oracle). Examples with outputs written out by hand where a
// rule is easy to get wrong.
import { describe, expect, it } from 'vitest';
import type { BatchOrigin } from '../../model/batch.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { AttrValue, Attributes, Span } from '../../model/span.ts';
import { mayWriteDataJsonSlot } from './decode.ts';
import { NamespaceProcessor } from './processor.ts';
import { pickWith as pick, seededRandom } from '../../test/helpers/random.ts';
import { cloneForNamespace, namespaceOutcome } from '../../test/helpers/namespace-outcome.ts';

// Generators: slot keys near the layout (ROOTS, EXACT), instrumentation key sequences (AG_KEYS,
// SOURCE_KEYS), and keys meant to confuse lookups (HOSTILE_KEYS).
const ROOTS = [
  'ag.data.inputs', 'ag.data.outputs', 'ag.data.parameters', 'ag.data.internals', 'ag.metrics.tokens.incremental',
  'ag.metrics.tokens.cumulative', 'ag.metrics.costs.incremental', 'ag.metrics.costs.cumulative', 'ag.flags',
  'ag.tags', 'ag.meta', 'ag.exception', 'ag.selector', 'ag.unsupported', 'ag.references.application',
  'ag.metrics.duration', 'ag.session', 'ag.type', 'ag.data', 'ag',
];
const EXACT = [
  'ag.type.span', 'ag.type.trace', 'ag.session.id', 'ag.user.id', 'ag.metrics.duration.incremental',
  'ag.metrics.duration.cumulative', 'ag.metrics.errors.incremental', 'ag.metrics.errors.cumulative', 'ag.data.outputs',
  'ag.data.inputs', 'ag.meta', 'ag.references.application.id', 'ag.meta.configuration', 'ag.meta.configuration.t',
  'ag.type.node', 'ag.refs.application.id', 'ag.metrics.unit.tokens.prompt', 'ag.data.parameters', 'ag',
];
const SEGMENTS = ['a', 'b', 'ab', '0', '1', '2', '01', '', 'role', 'content', 'prompt', '10', 'x'];
const VALUES: AttrValue[] = [
  'llm', 'chat', 'invocation', 'annotation', 'unknown', 'x', '', '{"q":"hi"}', '@ag.type=json:{"a":1}',
  '@ag.type=none:', 0, 1, 5, -1, 2.5, Number.NaN, true, false, null, [], ['a', 1], [null], [Number.POSITIVE_INFINITY],
  12345678901234567890n, '4BF92F35-77B3-4DA6-A3CE-929D0E0E4736',
];
const OTHER = ['gen_ai.request.model', 'gen_ai.operation.name', 'gen_ai.usage.input_tokens', 'llm.token_count.prompt',
  'ai.operationId', 'http.method', 'a.b', 'z'];

function randomKey(r: () => number): string {
  if (r() < 0.25) return pick(r, EXACT);
  let k = pick(r, ROOTS);
  const depth = 1 + Math.floor(r() * 3);
  for (let i = 0; i < depth; i++) k += '.' + pick(r, SEGMENTS);
  return k;
}

function randomAttrs(r: () => number): Attributes {
  const m: Attributes = new AttributeList();
  const n = Math.floor(r() * 9);
  for (let i = 0; i < n; i++) {
    const k = r() < 0.15 ? pick(r, OTHER) : randomKey(r);
    // Mostly values a slot accepts, so many spans take their plan.
    const v = r() < 0.6 ? (r() < 0.5 ? 'v' + i : i) : pick(r, VALUES);
    m.set(k, v);
  }
  return m;
}

const SLOTS: [string, 'free' | 'number' | 'flag' | 'string'][] = [
  ['ag.data.inputs', 'free'], ['ag.data.outputs', 'free'], ['ag.data.parameters', 'free'], ['ag.data.internals', 'free'],
  ['ag.metrics.tokens.incremental', 'number'], ['ag.metrics.costs.cumulative', 'number'], ['ag.flags', 'flag'],
  ['ag.tags', 'flag'], ['ag.meta', 'free'], ['ag.exception', 'free'], ['ag.selector', 'string'],
  ['ag.unsupported', 'free'],
];

function leaf(r: () => number, kind: string, i: number): AttrValue {
  switch (kind) {
    case 'number': return r() < 0.5 ? i : 1.5;
    case 'flag': return r() < 0.5 ? 'f' + i : true;
    case 'string': return 's' + i;
    default: return pick(r, ['t' + i, i, false, null, ['a', 2], 7n]);
  }
}

/** Keys written the way the full path writes them (grouped, indexes in order), then sometimes disturbed. */
function nearCanonicalAttrs(r: () => number): Attributes {
  const m: Attributes = new AttributeList();
  if (r() < 0.5) m.set('ag.type.span', pick(r, ['llm', 'chat', 'tool']));
  const slots = 1 + Math.floor(r() * 3);
  for (let s = 0; s < slots; s++) {
    const [root, kind] = pick(r, SLOTS);
    const width = 1 + Math.floor(r() * 3);
    for (let a = 0; a < width; a++) {
      const name = kind === 'number' || kind === 'flag' || kind === 'string' ? pick(r, ['p', 'q', 'c']) : pick(r, ['p', 'msgs', 'c']);
      if (kind !== 'string' && r() < 0.5) {
        // A list of objects: indexes in order, two members each.
        const n = 1 + Math.floor(r() * 3);
        for (let i = 0; i < n; i++) {
          const base = kind === 'free' ? `${root}.${name}.${i}` : `${root}.${name}.n${i}`;
          m.set(base + '.role', leaf(r, kind, i));
          m.set(base + '.content', leaf(r, kind, i + 1));
        }
      } else {
        m.set(`${root}.${name}`, leaf(r, kind, a));
      }
    }
  }
  if (r() < 0.4) {
    // References: mostly already clean, sometimes not (case, slug, number, unknown key, aliases).
    const n = 1 + Math.floor(r() * 3);
    for (let i = 0; i < n; i++) {
      const key = pick(r, ['application', 'evaluator', 'testset_revision', 'environment', 'variant', 'widget']);
      if (r() < 0.7) m.set(`ag.references.${key}.id`, pick(r, ['4bf92f35-77b3-4da6-a3ce-929d0e0e4736', '4BF92F35-77B3-4DA6-A3CE-929D0E0E4736', 'x']));
      if (r() < 0.5) m.set(`ag.references.${key}.slug`, pick(r, ['my-app', 'my app', 'v1.2']));
      if (r() < 0.5) m.set(`ag.references.${key}.version`, pick<AttrValue>(r, ['3', 3, null]));
    }
  }
  if (r() < 0.25) m.set('ag.type.node', pick<AttrValue>(r, ['Workflow', 'LLM', 'robot', 5, null]));
  if (r() < 0.3) {
    // Agenta SDK style @ag.type= values (S2), sometimes ones that need a second round or do not parse.
    m.set(pick(r, ['ag.data.inputs', 'ag.data.outputs', 'ag.meta', 'ag.data.parameters.p', 'ag.type.span', 'ag']), pick(r, [
      '@ag.type=json:{"q":"hi","n":[1,2],"m":[{"r":"u"}]}', '@ag.type=json:[1,2]', '@ag.type=json:[{"a":1}]',
      '@ag.type=json:"@ag.type=none:"', '@ag.type=none:', '@ag.type=json:bad', '@ag.type=json:"chat"',
      '@ag.type=json:{}', '@ag.type=text:x', '@ag.type=json:{"type":{"span":"tool"},"session":{"id":"s2"}}',
    ]));
  }
  if (r() < 0.3) m.set('ag.session.id', 's');
  if (r() < 0.2) m.set('ag.metrics.duration.incremental', 3);
  if (r() < 0.3) m.set(pick(r, OTHER), 'o');
  if (r() < 0.3) {
    // Disturb: move a key to the end, or give one a random value, or add a random key.
    const entries = [...m];
    const j = Math.floor(r() * entries.length);
    const choice = r();
    if (choice < 0.4) { m.delete(entries[j][0]); m.set(entries[j][0], entries[j][1]); }
    else if (choice < 0.7) m.set(entries[j][0], pick(r, VALUES));
    else m.set(randomKey(r), pick(r, VALUES));
  }
  return m;
}

/** The benchmark's span shape (bench/bodies.ts), varied. */
function realisticAttrs(i: number): Attributes {
  return new AttributeList([
    ['ag.type.span', i % 3 === 0 ? 'chat' : 'tool'],
    ['ag.data.inputs.prompt.0.role', 'user'],
    ['ag.data.inputs.prompt.0.content', `question ${i}`],
    ['ag.data.outputs.completion.0.content', 'answer'],
    ['ag.metrics.tokens.incremental.prompt', 42 + (i % 7)],
    ['ag.metrics.tokens.incremental.completion', 17],
    ['ag.session.id', `session-${i % 10}`],
    ['gen_ai.request.model', 'gpt-4o-mini'],
    ['gen_ai.operation.name', 'chat'],
    ['gen_ai.usage.input_tokens', 42 + (i % 7)],
  ]);
}

/** Agenta SDK style: the span type as `ag.type.node`, data as `@ag.type=json:` strings. */
function agentaAttrs(i: number): Attributes {
  return new AttributeList([
    ['ag.type.node', i % 2 === 0 ? 'Workflow' : 'LLM'],
    ['ag.data.inputs', `@ag.type=json:{"question":"q${i}","messages":[{"role":"user","content":"hi"}]}`],
    ['ag.data.outputs', '@ag.type=json:"an answer"'],
    ['ag.references.application.id', '4bf92f35-77b3-4da6-a3ce-929d0e0e4736'],
    ['ag.references.application.slug', 'my-app'],
    ['ag.metrics.tokens.incremental.total', 12],
  ]);
}

/** Keys of realistic instrumentations: ag.* as the tracing API sends them, and semantic conventions. */
const AG_KEYS = [
  'ag.type.span', 'ag.type.node', 'ag.type.trace', 'ag.data.inputs.prompt.0.role', 'ag.data.inputs.prompt.0.content',
  'ag.data.inputs.prompt.1.role', 'ag.data.outputs.completion.0.content', 'ag.data.outputs', 'ag.data.inputs',
  'ag.data.parameters.temperature', 'ag.metrics.tokens.incremental.prompt', 'ag.metrics.tokens.incremental.completion',
  'ag.metrics.costs.cumulative.total', 'ag.metrics.duration.incremental', 'ag.session.id', 'ag.user.id',
  'ag.references.application.id', 'ag.references.application.slug', 'ag.references.variant.id', 'ag.flags.f',
  'ag.tags.env', 'ag.meta.request.model', 'ag.meta.configuration.t', 'ag.selector.k', 'ag.unsupported.x', 'ag.exception.message',
];
const SOURCE_KEYS = [
  'gen_ai.operation.name', 'gen_ai.request.model', 'gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens',
  'gen_ai.input.messages', 'gen_ai.conversation.id', 'gen_ai.prompt.0.content', 'llm.model_name', 'llm.token_count.prompt',
  'input.value', 'output.value', 'openinference.span.kind', 'ai.operationId', 'ai.model.id', 'ai.usage.promptTokens',
  'ai.response.text', 'traceloop.entity.input', 'session.id',
  // Prefix rows and the rows that read keys of their own (custom rows), present or not on a plan's keys.
  'gen_ai.completion.0.content', 'gen_ai.usage.total_tokens', 'llm.input_messages.0.message.content',
  'llm.output_messages.0.message.role', 'llm.tools.0.tool.json_schema', 'llm.invocation_parameters',
  'traceloop.entity.output', 'ai.response.toolCalls', 'ai.response.finishReason', 'retrieval.documents.0.document.id',
  'llm.request.functions.0.name',
];
const OTHER_KEYS = ['http.method', 'service.name', 'a', 'a.b', 'z.0'];
/** Keys that must not confuse any lookup: prototype names, empty segments, near-misses, very long keys. */
const HOSTILE_KEYS = [
  '__proto__', 'constructor', 'toString', '', '.', 'ag', 'ag.', 'ag..x', 'ag.data.inputs.__proto__', 'ag.meta.constructor',
  'ag.tags.__proto__', 'ag.references.__proto__.id', 'ag.selector.a.b', 'ag.meta.configuration', 'AG.type.span',
  'ag.type.span ', 'ag.meta.\u043a\u043b\u044e\u0447', 'ag.meta.\u0000', 'ag.meta.' + 'x'.repeat(200),
  'ag.data.inputs.' + 'y'.repeat(140), 'gen_ai.', 'ai.', 'llm.token_count.', 'ag.data.inputs.0', 'ag.type',
];

const GOOD_VALUES: Record<string, AttrValue[]> = {
  'ag.type.span': ['llm', 'chat', 'tool'], 'ag.type.node': ['Workflow', 'LLM', 'chat'], 'ag.type.trace': ['invocation', 'unknown'],
  'ag.metrics.tokens.incremental.prompt': [5, 42], 'ag.metrics.tokens.incremental.completion': [3, 7n],
  'ag.metrics.costs.cumulative.total': [0.25], 'ag.metrics.duration.incremental': [12],
  'ag.references.application.id': ['4bf92f35-77b3-4da6-a3ce-929d0e0e4736'], 'ag.references.application.slug': ['my-app'],
  'ag.flags.f': [true, 'yes'], 'ag.tags.env': ['prod'], 'ag.selector.k': ['v'],
  'gen_ai.usage.input_tokens': [10, 3n], 'gen_ai.usage.output_tokens': [5], 'llm.token_count.prompt': [3],
  'ai.usage.promptTokens': [4], 'gen_ai.operation.name': ['chat', 'embeddings', 'other'],
  'openinference.span.kind': ['LLM', 'TOOL'], 'ai.operationId': ['ai.toolCall', 'ai.generateText'],
  'gen_ai.input.messages': ['[{"role":"user","content":"hi"}]', '[]'], 'input.value': ['{"q":"hi"}', 'plain'],
  'llm.tools.0.tool.json_schema': ['{"name":"f"}', 'raw'], 'llm.invocation_parameters': ['{"temperature":0.2}', 'x'],
  'traceloop.entity.output': ['{"outputs":{"a":1}}', '{"outputs":"text"}'], 'gen_ai.usage.total_tokens': [15],
  'ai.response.finishReason': ['stop'], 'ai.response.toolCalls': ['[{"id":"c1"}]'],
};
/** Values that send a span elsewhere: wrong types, nulls, `@ag.type=` strings, JSON that does not parse. */
const ODD_VALUES: AttrValue[] = [
  null, Number.NaN, '', 'ROBOT', 12, 2.5, ['a', 1], [], 1n, '@ag.type=json:{"q":"x"}', '@ag.type=none:',
  '@ag.type=json:{"type":{"span":"tool"}}', '@ag.type=json:bad', '{"a":1}', '[1,2]', 'not json',
  '4BF92F35-77B3-4DA6-A3CE-929D0E0E4736', 'my app', true,
];

function value(r: () => number, k: string, i: number, clean: boolean): AttrValue {
  if (clean) return GOOD_VALUES[k]?.[0] ?? `v${i}`;
  if (r() < 0.12) return pick(r, ODD_VALUES);
  const good = GOOD_VALUES[k];
  if (good !== undefined) return pick(r, good);
  return r() < 0.5 ? `v${i}` : i;
}

/** One instrumentation's key sequence: a few ag keys, sources and other keys, sometimes a hostile one. */
function sequence(r: () => number, hostile: boolean): string[] {
  const keys = new Set<string>();
  const n = 1 + Math.floor(r() * 10);
  for (let i = 0; i < n; i++) {
    const x = r();
    if (hostile && x < 0.3) keys.add(pick(r, HOSTILE_KEYS));
    else if (x < 0.65) keys.add(pick(r, AG_KEYS));
    else if (x < 0.9) keys.add(pick(r, SOURCE_KEYS));
    else keys.add(pick(r, OTHER_KEYS));
  }
  return [...keys];
}

/** A key sequence changed the way spans of one request can differ: a key more or less, or moved. */
function mutate(r: () => number, keys: string[]): string[] {
  const out = [...keys];
  const x = r();
  if (x < 0.3 && out.length > 1) out.splice(Math.floor(r() * out.length), 1);
  else if (x < 0.6) {
    const k = pick(r, [...AG_KEYS, ...SOURCE_KEYS]);
    if (!out.includes(k)) out.splice(Math.floor(r() * (out.length + 1)), 0, k);
  } else if (out.length > 1) {
    const [k] = out.splice(Math.floor(r() * out.length), 1);
    out.push(k);
  }
  return out;
}

let id = 1;
function spanWith(r: () => number, attributes: Attributes): Span {
  const start = 1_776_363_498_000_000_000n;
  return {
    traceId: pick(r, ['11111111111111111111111111111111', '22222222222222222222222222222222']),
    spanId: (id++).toString(16).padStart(16, '0'),
    parentId: r() < 0.5 ? undefined : '00000000000000aa',
    name: 'op',
    kind: 1,
    startNs: start,
    endNs: start + BigInt(Math.floor(r() * 3e9)) - 1_000_000_000n,
    status: { code: 0 },
    attributes,
    events: r() < 0.3 ? [{ name: 'exception', timeNs: start, attributes: new AttributeList() }] : r() < 0.5 ? [] : undefined,
    links: r() < 0.2 ? [] : undefined,
    spanType: r() < 0.3 ? 'tool' : undefined,
    traceType: r() < 0.1 ? 'annotation' : undefined,
    sessionId: r() < 0.2 ? 'client-session' : undefined,
  };
}

function keyedSpan(r: () => number, keys: readonly string[], clean = false): Span {
  const attributes: Attributes = new AttributeList();
  for (let i = 0; i < keys.length; i++) attributes.set(keys[i], value(r, keys[i], i, clean));
  return spanWith(r, attributes);
}

/** A request: most spans on one sequence, some on changed ones, in random order. */
function request(r: () => number, base: string[], size: number): Span[] {
  const spans: Span[] = [];
  for (let i = 0; i < size; i++) spans.push(keyedSpan(r, r() < 0.2 ? mutate(r, base) : base));
  return spans;
}

function run(p: NamespaceProcessor, origin: BatchOrigin, spans: Span[]): Span[] {
  const copy = spans.map(cloneForNamespace);
  p.process({ origin, spans: copy });
  return copy;
}

/**
 * Checks both properties for one batch through `p`, a processor that has seen other spans: each output
 * equals what a fresh processor gives for that span alone, and running it again changes nothing.
 */
function check(p: NamespaceProcessor, origin: BatchOrigin, spans: Span[], semconv: 'otlp' | 'all' = 'otlp'): Span[] {
  const out = run(p, origin, spans);
  for (let i = 0; i < spans.length; i++) {
    // Alone, unless the span's trace type depends on a sibling's links.
    const alone = spans.some((s) => s.links !== undefined) ? spans : [spans[i]];
    const fresh = run(new NamespaceProcessor({ semconv }), origin, alone)[alone === spans ? i : 0];
    expect(namespaceOutcome(out[i])).toEqual(namespaceOutcome(fresh));
  }
  const again = run(p, origin, out);
  for (let i = 0; i < out.length; i++) expect(namespaceOutcome(again[i])).toEqual(namespaceOutcome(out[i]));
  return out;
}

describe('namespace: outputs are fixed points and independent of earlier spans', () => {
  for (const origin of ['tracing', 'otlp'] as const) {
    it(`random and near-canonical attributes (${origin})`, () => {
      const r = seededRandom(origin === 'otlp' ? 11 : 13);
      const p = new NamespaceProcessor({ semconv: 'otlp' });
      for (let round = 0; round < 600; round++) {
        check(p, origin, [spanWith(r, randomAttrs(r)), spanWith(r, nearCanonicalAttrs(r)), spanWith(r, nearCanonicalAttrs(r))]);
      }
    });

    it(`requests whose key sequences change mid-request (${origin})`, () => {
      const r = seededRandom(origin === 'otlp' ? 31 : 37);
      const p = new NamespaceProcessor({ semconv: 'otlp' });
      for (let round = 0; round < 100; round++) check(p, origin, request(r, sequence(r, false), 8));
    });
  }

  it('hostile keys, and spans with more keys than a plan is kept for', () => {
    const r = seededRandom(41);
    const p = new NamespaceProcessor({ semconv: 'all' });
    for (let round = 0; round < 100; round++) {
      const base = sequence(r, true);
      if (round % 15 === 0) for (let i = 0; i < 1100; i++) base.push(`ag.meta.k${i}`);
      check(p, 'otlp', request(r, base, 4), 'all');
    }
  });

  it('more key sequences than the plan cache holds, cycled so each comes back after it was replaced', () => {
    const r = seededRandom(43);
    const p = new NamespaceProcessor({ semconv: 'otlp' });
    const bases = Array.from({ length: 80 }, (_, i) => [
      i % 3 === 0 ? 'ag.type.node' : 'ag.type.span', `ag.meta.m${i}`, 'ag.data.inputs.prompt.0.role', 'gen_ai.request.model', `ag.tags.t${i % 7}`,
      ...(i % 2 === 0 ? ['gen_ai.usage.input_tokens'] : ['ag.session.id']),
    ]);
    for (let round = 0; round < 3; round++) {
      for (let b = 0; b < bases.length; b++) check(p, 'otlp', [keyedSpan(r, bases[(b * 7 + round) % bases.length], true), keyedSpan(r, bases[b])]);
    }
  });

  it('more distinct keys than the key code memo holds, long keys included', () => {
    const r = seededRandom(29);
    const p = new NamespaceProcessor({ semconv: 'otlp' });
    const roots = ['ag.data.inputs', 'ag.meta', 'ag.flags', 'ag.data.internals', 'ag.tags'];
    for (let i = 0; i < 1200; i++) {
      const attributes: Attributes = new AttributeList();
      for (let j = 0; j < 5; j++) attributes.set(`${roots[j]}.k${i}${i % 50 === 0 ? 'x'.repeat(130) : ''}`, `v${i}`);
      check(p, 'otlp', [spanWith(r, attributes), spanWith(r, realisticAttrs(i))]);
    }
  });

  it('one key sequence with and without semantic conventions', () => {
    const r = seededRandom(47);
    const p = new NamespaceProcessor({ semconv: 'otlp' });
    const keys = ['ag.type.span', 'ag.data.inputs.prompt.0.role', 'gen_ai.request.model', 'gen_ai.usage.input_tokens'];
    for (let round = 0; round < 40; round++) check(p, round % 2 === 0 ? 'otlp' : 'tracing', [keyedSpan(r, keys), keyedSpan(r, keys)]);
  });

  it('several semantic-convention families on one span, with values that change what they map', () => {
    const r = seededRandom(53);
    const p = new NamespaceProcessor({ semconv: 'otlp' });
    const keys = [
      'ag.data.outputs.completion.0.content', 'gen_ai.operation.name', 'gen_ai.request.model', 'gen_ai.input.messages',
      'gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens', 'llm.model_name', 'llm.token_count.prompt',
      'input.value', 'ai.model.id', 'ai.usage.promptTokens', 'gen_ai.prompt.0.content', 'traceloop.entity.input',
    ];
    for (let round = 0; round < 100; round++) check(p, 'otlp', request(r, keys, 4));
  });

  it('realistic and Agenta SDK style spans', () => {
    const r = seededRandom(17);
    const p = new NamespaceProcessor({ semconv: 'otlp' });
    for (let round = 0; round < 3; round++) {
      check(p, 'otlp', Array.from({ length: 50 }, (_, i) => spanWith(r, i % 2 === 0 ? realisticAttrs(i) : agentaAttrs(i))));
    }
  });
});

/** The output of one span through a processor that has already seen its key sequence. */
function second(attributes: Record<string, AttrValue>, origin: BatchOrigin = 'otlp'): Span {
  const p = new NamespaceProcessor({ semconv: 'otlp' });
  const make = (): Span => spanWith(seededRandom(7), new AttributeList(Object.entries(attributes)));
  run(p, origin, [make()]);
  return run(p, origin, [make()])[0];
}

describe('namespace examples where the order of rules matters', () => {
  it('a slot whose keys come in interrupted groups is written grouped, in first-appearance order', () => {
    // gen_ai maps response.model, then the request parameters, then response.id, so ag.meta's `response`
    // group is interrupted by `request`; the explicit ag.data.inputs keys interrupt `a` with `b`.
    const out = second({
      'gen_ai.operation.name': 'chat', 'gen_ai.response.model': 'gpt-4o-2024-08-06', 'gen_ai.request.temperature': 0.2,
      'gen_ai.request.max_tokens': 1024, 'gen_ai.response.id': 'chatcmpl-1',
      'ag.data.inputs.a.x': 1, 'ag.data.inputs.b': 2, 'ag.data.inputs.a.y': 3,
      'ag.references.application.id': '4bf92f35-77b3-4da6-a3ce-929d0e0e4736', 'ag.references.evaluator.slug': 'judge',
      'ag.references.application.slug': 'my-app',
    });
    const keys = [...out.attributes.keys()].filter((k) => k.startsWith('ag.meta') || k.startsWith('ag.data'));
    expect(keys).toEqual([
      'ag.data.inputs.a.x', 'ag.data.inputs.a.y', 'ag.data.inputs.b', 'ag.meta.response.model', 'ag.meta.response.id',
      'ag.meta.request.max_tokens', 'ag.meta.request.temperature',
    ]);
    expect(out.references?.map((ref) => [ref.attributes.get('key'), ref.id, ref.slug])).toEqual([
      ['application', '4bf92f35-77b3-4da6-a3ce-929d0e0e4736', 'my-app'], ['evaluator', undefined, 'judge'],
    ]);
  });

  it('Agenta SDK values: ag.type.node and @ag.type=json: data are decoded in place', () => {
    const out = second({
      'ag.type.node': 'Workflow',
      'ag.data.inputs': '@ag.type=json:{"question":"q","messages":[{"role":"user","content":"hi"}]}',
      'ag.data.outputs': '@ag.type=json:"an answer"',
      'ag.meta.x': '@ag.type=none:',
      'http.method': 'POST',
    });
    expect([...out.attributes].filter(([k]) => !k.startsWith('ag.metrics'))).toEqual([
      ['ag.type.span', 'workflow'], ['ag.type.trace', 'invocation'], ['ag.data.inputs.question', 'q'],
      ['ag.data.inputs.messages.0.role', 'user'], ['ag.data.inputs.messages.0.content', 'hi'],
      ['ag.data.outputs', 'an answer'], ['ag.meta.x', null], ['http.method', 'POST'],
    ]);
    expect(out.spanType).toBe('workflow');
  });

  it('a family that writes a data slot gets S5: a JSON string there is decoded', () => {
    const out = second({ 'ag.type.span': 'chat', 'openinference.span.kind': 'LLM', 'input.value': '{"q":"hi"}' });
    expect(out.attributes.get('ag.data.inputs.q')).toBe('hi');
    expect(out.attributes.has('ag.data.inputs')).toBe(false);
  });

  it('a key a higher family mapped to null (claiming nothing) is mapped again by a lower family, in its place', () => {
    // gen_ai copies a null conversation id to ag.session.id, where null means absent; OpenInference's
    // session.id then lands on the same key.
    const out = second({ 'gen_ai.operation.name': 'chat', 'gen_ai.conversation.id': null, 'session.id': 'sess-1' });
    expect(out.attributes.get('ag.session.id')).toBe('sess-1');
  });

  it('a prefix row whose target an earlier row of its family already wrote keeps the earlier value', () => {
    // OpenLLMetry's entity input lands a prompt message below ag.data.inputs; its gen_ai.prompt prefix row,
    // later in the family, maps onto the same key. Within a family the earlier row wins.
    const out = second({
      'traceloop.entity.input': '{"inputs":{"prompt":{"0":{"content":"from entity"}}}}',
      'gen_ai.prompt.0.content': 'from prefix',
      'gen_ai.prompt.0.role': 'user',
    });
    expect(out.attributes.get('ag.data.inputs.prompt.0.content')).toBe('from entity');
    expect(out.attributes.get('ag.data.inputs.prompt.0.role')).toBe('user');
  });

  it('a metric that is NaN or infinite (an OTLP double can be) is quarantined, not kept as a number', () => {
    const out = second({ 'ag.metrics.tokens.incremental.prompt': Number.NaN, 'ag.metrics.duration.incremental': Number.POSITIVE_INFINITY, 'ag.metrics.costs.incremental.total': 0.5 });
    expect(out.attributes.has('ag.metrics.tokens.incremental.prompt')).toBe(false);
    expect(out.attributes.get('ag.unsupported.metrics.tokens.incremental.prompt')).toBe('NaN');
    expect(out.attributes.get('ag.unsupported.metrics.duration.incremental')).toBe('Infinity');
    expect(out.attributes.get('ag.metrics.costs.incremental.total')).toBe(0.5);
    check(new NamespaceProcessor({ semconv: 'otlp' }), 'otlp', [out]);
  });

  it('knows which row targets can reach a data slot S5 decodes (the slot itself or above it)', () => {
    for (const t of ['ag', 'ag.data', 'ag.data.inputs', 'ag.data.parameters', 'ag.data.internals']) expect(mayWriteDataJsonSlot(t)).toBe(true);
    for (const t of ['ag.data.inputs.prompt', 'ag.data.outputs', 'ag.dat', 'ag.meta.request.model', 'ag.type.span', 'a', '']) {
      expect(mayWriteDataJsonSlot(t)).toBe(false);
    }
  });
});
