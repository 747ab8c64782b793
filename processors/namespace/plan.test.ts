// Differential check of the fast path's per-key-sequence plans (plan.ts): every span gives the same result
// through the plan, through normaliseFast alone and through the full path, key order included, while the
// key sequences of a request change, the plan cache overflows, and keys are hostile.
import { beforeEach, describe, expect, it } from 'vitest';
import type { BatchOrigin } from '../../model/batch.ts';
import type { AttrValue, Attributes, Span } from '../../model/span.ts';
import { pickWith as pick, seededRandom } from '../../test/helpers/random.ts';
import { fastPath } from './normalise.ts';
import { clearPlans } from './plan.ts';
import { mayWriteDataJsonSlot } from './decode.ts';
import { NamespaceProcessor } from './processor.ts';
import { cloneForNamespace, namespaceOutcome } from '../../test/helpers/namespace-outcome.ts';

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

const GOOD: Record<string, AttrValue[]> = {
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
const ODD: AttrValue[] = [
  null, Number.NaN, '', 'ROBOT', 12, 2.5, ['a', 1], [], 1n, '@ag.type=json:{"q":"x"}', '@ag.type=none:',
  '@ag.type=json:{"type":{"span":"tool"}}', '@ag.type=json:bad', '{"a":1}', '[1,2]', 'not json',
  '4BF92F35-77B3-4DA6-A3CE-929D0E0E4736', 'my app', true,
];

function value(r: () => number, k: string, i: number, clean: boolean): AttrValue {
  if (clean) return GOOD[k]?.[0] ?? `v${i}`;
  if (r() < 0.12) return pick(r, ODD);
  const good = GOOD[k];
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

let nextId = 1;
function span(r: () => number, keys: readonly string[], clean = false): Span {
  const attributes: Attributes = new Map();
  for (let i = 0; i < keys.length; i++) attributes.set(keys[i], value(r, keys[i], i, clean));
  const start = 1_776_363_498_000_000_000n;
  return {
    traceId: pick(r, ['11111111111111111111111111111111', '22222222222222222222222222222222']),
    spanId: (nextId++).toString(16).padStart(16, '0'),
    parentId: r() < 0.3 ? undefined : '00000000000000aa',
    name: 'op',
    kind: 1,
    startNs: start,
    endNs: start + BigInt(Math.floor(r() * 2e9)) - 500_000_000n,
    status: { code: 0 },
    attributes,
    events: r() < 0.3 ? [{ name: 'exception', timeNs: start, attributes: new Map() }] : undefined,
    links: r() < 0.1 ? [] : undefined,
    spanType: r() < 0.2 ? 'tool' : undefined,
  };
}

function run(p: NamespaceProcessor, origin: BatchOrigin, spans: Span[], enabled: boolean, plans: boolean): Span[] {
  const copy = spans.map(cloneForNamespace);
  fastPath.enabled = enabled;
  fastPath.plans = plans;
  try {
    p.process({ origin, spans: copy });
  } finally {
    fastPath.enabled = true;
    fastPath.plans = true;
  }
  return copy;
}

/**
 * Five requests of two spans with exactly these attributes, compared three ways: every span but the very
 * first (a key sequence is planned on its second sighting) must be taken by a plan. Returns one more
 * span through the plan path.
 */
function plannedAfterFirstSighting(attributes: Record<string, AttrValue>): Span {
  const p = new NamespaceProcessor({ semconv: 'otlp' });
  const make = (): Span => {
    const s = span(seededRandom(7), [], true);
    for (const [k, v] of Object.entries(attributes)) s.attributes.set(k, v);
    return s;
  };
  let planned = 0;
  for (let round = 0; round < 5; round++) planned += compare(p, 'otlp', [make(), make()]);
  expect(planned).toBe(9);
  return run(p, 'otlp', [make()], true, true)[0];
}

/** One batch three ways (full, normaliseFast alone, with plans); returns how many spans a plan took. */
function compare(p: NamespaceProcessor, origin: BatchOrigin, spans: Span[]): number {
  const full = run(p, origin, spans, false, false);
  const general = run(p, origin, spans, true, false);
  const before = fastPath.planned;
  const planned = run(p, origin, spans, true, true);
  for (let i = 0; i < spans.length; i++) {
    const want = namespaceOutcome(full[i]);
    expect(namespaceOutcome(general[i])).toEqual(want);
    expect(namespaceOutcome(planned[i])).toEqual(want);
  }
  return fastPath.planned - before;
}

/** A request: most spans on one sequence, some on changed ones, in random order. */
function request(r: () => number, base: string[], size: number): Span[] {
  const spans: Span[] = [];
  for (let i = 0; i < size; i++) spans.push(span(r, r() < 0.2 ? mutate(r, base) : base));
  return spans;
}

describe('fast path plans equal normaliseFast and the full path', () => {
  beforeEach(() => clearPlans());

  for (const origin of ['otlp', 'tracing'] as const) {
    it(`random requests whose key sequences change mid-request (${origin})`, () => {
      const r = seededRandom(origin === 'otlp' ? 31 : 37);
      const p = new NamespaceProcessor({ semconv: 'otlp' });
      let planned = 0;
      let total = 0;
      for (let round = 0; round < 150; round++) {
        const spans = request(r, sequence(r, false), 12);
        planned += compare(p, origin, spans);
        total += spans.length;
      }
      expect(planned).toBeGreaterThan(total / 5);
      expect(planned).toBeLessThan(total);
    });
  }

  it('hostile keys and spans too large to plan', () => {
    const r = seededRandom(41);
    const p = new NamespaceProcessor({ semconv: 'all' });
    let planned = 0;
    for (let round = 0; round < 150; round++) {
      const base = sequence(r, true);
      if (round % 15 === 0) for (let i = 0; i < 70; i++) base.push(`ag.meta.k${i}`); // past the plan's key limit
      planned += compare(p, 'otlp', request(r, base, 8));
    }
    expect(planned).toBeGreaterThan(100);
  });

  it('more key sequences than the cache holds, interleaved, then the first ones again', () => {
    const r = seededRandom(43);
    const p = new NamespaceProcessor({ semconv: 'otlp' });
    // 40 sequences of clean spans (every one plannable), cycled so each comes back after being evicted;
    // a sequence is planned on its second span, so two of every three take a plan.
    const bases = Array.from({ length: 40 }, (_, i) => [
      i % 3 === 0 ? 'ag.type.node' : 'ag.type.span', `ag.meta.m${i}`, 'ag.data.inputs.prompt.0.role', 'gen_ai.request.model', `ag.tags.t${i % 7}`,
      ...(i % 2 === 0 ? ['gen_ai.usage.input_tokens'] : ['ag.session.id']),
    ]);
    let planned = 0;
    let total = 0;
    for (let round = 0; round < 3; round++) {
      for (let b = 0; b < bases.length; b++) {
        const spans = Array.from({ length: 3 }, () => span(r, bases[(b * 7 + round) % bases.length], true));
        planned += compare(p, 'otlp', spans);
        total += spans.length;
      }
    }
    expect(planned).toBe((total / 3) * 2);
  });

  it('plans no key sequence seen only once, and still plans one that repeats among them', () => {
    const r = seededRandom(59);
    const p = new NamespaceProcessor({ semconv: 'otlp' });
    const repeated = ['ag.type.span', 'ag.data.inputs.q', 'gen_ai.request.model'];
    let unique = 0;
    let planned = 0;
    for (let round = 0; round < 60; round++) {
      // Three spans whose keys are never seen again, then the repeated one.
      const once = Array.from({ length: 3 }, () => span(r, ['ag.type.span', `ag.meta.u${unique++}`, 'http.x'], true));
      expect(compare(p, 'otlp', once)).toBe(0);
      planned += compare(p, 'otlp', [span(r, repeated, true)]);
    }
    expect(planned).toBe(59);
  });

  it('one key sequence seen with and without semantic conventions', () => {
    // The same keys from the tracing API (no mapping) and from OTLP (mapped): separate plans.
    const r = seededRandom(47);
    const p = new NamespaceProcessor({ semconv: 'otlp' });
    const keys = ['ag.type.span', 'ag.data.inputs.prompt.0.role', 'gen_ai.request.model', 'gen_ai.usage.input_tokens'];
    let planned = 0;
    for (let round = 0; round < 40; round++) {
      planned += compare(p, round % 2 === 0 ? 'otlp' : 'tracing', [span(r, keys), span(r, keys)]);
    }
    expect(planned).toBeGreaterThan(40);
  });

  it('knows which row targets can reach a data slot S5 decodes (the slot itself or above it)', () => {
    for (const t of ['ag', 'ag.data', 'ag.data.inputs', 'ag.data.parameters', 'ag.data.internals']) expect(mayWriteDataJsonSlot(t)).toBe(true);
    for (const t of ['ag.data.inputs.prompt', 'ag.data.outputs', 'ag.dat', 'ag.meta.request.model', 'ag.type.span', 'a', '']) {
      expect(mayWriteDataJsonSlot(t)).toBe(false);
    }
  });

  it('a family that writes a data slot gets S5 on the plan path (a JSON string there is decoded, not sent to the full path)', () => {
    // OpenInference's input.value lands on ag.data.inputs as a string; S5 parses it. The plan knows this
    // family can reach a data slot (FamilyPlan.dataSlots): skipping S5 would refuse these spans to the full path.
    const r = seededRandom(61);
    const p = new NamespaceProcessor({ semconv: 'otlp' });
    const keys = ['ag.type.span', 'openinference.span.kind', 'input.value', 'http.x'];
    let planned = 0;
    for (let round = 0; round < 30; round++) planned += compare(p, 'otlp', [span(r, keys, true), span(r, keys, true)]);
    // Every span but the very first (a sequence is planned on its second sighting).
    expect(planned).toBe(59);
    const [out] = run(p, 'otlp', [span(r, keys, true)], true, true);
    expect(out.attributes.get('ag.data.inputs.q')).toBe('hi');
  });

  it('a key a higher family mapped to null (claiming nothing) is mapped again by a lower family, in its place', () => {
    // gen_ai copies a null conversation id to ag.session.id, where null means absent; OpenInference's
    // session.id then lands on the same key. The planned merge must replace the value as Map.set does:
    // a second member would send every such span to the full path.
    const out = plannedAfterFirstSighting({ 'gen_ai.operation.name': 'chat', 'gen_ai.conversation.id': null, 'session.id': 'sess-1' });
    expect(out.attributes.get('ag.session.id')).toBe('sess-1');
  });

  it('a prefix row whose target an earlier row of its family already wrote keeps the earlier value', () => {
    // OpenLLMetry's entity input lands a prompt message below ag.data.inputs; its gen_ai.prompt prefix row,
    // later in the family, maps onto the same key. Within a family the earlier row wins, on every path.
    const out = plannedAfterFirstSighting({
      'traceloop.entity.input': '{"inputs":{"prompt":{"0":{"content":"from entity"}}}}',
      'gen_ai.prompt.0.content': 'from prefix',
      'gen_ai.prompt.0.role': 'user',
    });
    expect(out.attributes.get('ag.data.inputs.prompt.0.content')).toBe('from entity');
    expect(out.attributes.get('ag.data.inputs.prompt.0.role')).toBe('user');
  });

  it('several semantic-convention families on one span, with values that change what they map', () => {
    const r = seededRandom(53);
    const p = new NamespaceProcessor({ semconv: 'otlp' });
    const keys = [
      'ag.data.outputs.completion.0.content', 'gen_ai.operation.name', 'gen_ai.request.model', 'gen_ai.input.messages',
      'gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens', 'llm.model_name', 'llm.token_count.prompt',
      'input.value', 'ai.model.id', 'ai.usage.promptTokens', 'gen_ai.prompt.0.content', 'traceloop.entity.input',
    ];
    let planned = 0;
    for (let round = 0; round < 150; round++) planned += compare(p, 'otlp', request(r, keys, 4));
    expect(planned).toBeGreaterThan(100);
  });
});
