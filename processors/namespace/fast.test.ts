// Differential check: the fast path (fast.ts) and the full S6-S9 path give identical spans, key order
// included, on random near-canonical attributes, on the robustness generator's shapes and on realistic spans.
import { describe, expect, it } from 'vitest';
import type { BatchOrigin } from '../../model/batch.ts';
import type { AttrValue, Attributes, Span } from '../../model/span.ts';
import { fastPath } from './normalise.ts';
import { NamespaceProcessor } from './processor.ts';
import { seededRandom, pickWith } from '../../test/helpers/random.ts';
import { cloneForNamespace, namespaceOutcome } from '../../test/helpers/namespace-outcome.ts';

const pick = pickWith;

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
  const m: Attributes = new Map();
  const n = Math.floor(r() * 9);
  for (let i = 0; i < n; i++) {
    const k = r() < 0.15 ? pick(r, OTHER) : randomKey(r);
    // Mostly values a slot accepts, so many spans stay on the fast path.
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
  const m: Attributes = new Map();
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
  return new Map<string, AttrValue>([
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
  return new Map<string, AttrValue>([
    ['ag.type.node', i % 2 === 0 ? 'Workflow' : 'LLM'],
    ['ag.data.inputs', `@ag.type=json:{"question":"q${i}","messages":[{"role":"user","content":"hi"}]}`],
    ['ag.data.outputs', '@ag.type=json:"an answer"'],
    ['ag.references.application.id', '4bf92f35-77b3-4da6-a3ce-929d0e0e4736'],
    ['ag.references.application.slug', 'my-app'],
    ['ag.metrics.tokens.incremental.total', 12],
  ]);
}

let id = 1;
function span(r: () => number, attributes: Attributes): Span {
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
    events: r() < 0.3 ? [{ name: 'exception', timeNs: start, attributes: new Map() }] : r() < 0.5 ? [] : undefined,
    links: r() < 0.2 ? [] : undefined,
    spanType: r() < 0.3 ? 'tool' : undefined,
    traceType: r() < 0.1 ? 'annotation' : undefined,
    sessionId: r() < 0.2 ? 'client-session' : undefined,
  };
}

/** Runs one batch both ways; returns how many spans the fast path took. */
function compare(spans: Span[], origin: BatchOrigin, p: NamespaceProcessor): number {
  const slow = spans.map(cloneForNamespace);
  fastPath.enabled = false;
  try {
    p.process({ origin, spans: slow });
  } finally {
    fastPath.enabled = true;
  }
  const fast = spans.map(cloneForNamespace);
  const before = fastPath.hits;
  p.process({ origin, spans: fast });
  for (let i = 0; i < spans.length; i++) expect(namespaceOutcome(fast[i])).toEqual(namespaceOutcome(slow[i]));
  return fastPath.hits - before;
}

describe('namespace fast path equals the full path', () => {
  for (const origin of ['tracing', 'otlp'] as const) {
    it(`random near-canonical attributes (${origin})`, () => {
      const r = seededRandom(origin === 'otlp' ? 11 : 13);
      const p = new NamespaceProcessor({ semconv: 'otlp' });
      let fast = 0;
      let total = 0;
      for (let round = 0; round < 1500; round++) {
        const spans = [span(r, randomAttrs(r)), span(r, nearCanonicalAttrs(r)), span(r, nearCanonicalAttrs(r))];
        fast += compare(spans, origin, p);
        total += spans.length;
      }
      // Both paths must actually be exercised for the comparison to mean anything.
      expect(fast).toBeGreaterThan(total / 10);
      expect(fast).toBeLessThan(total);
    });

    it(`realistic spans, and their outputs fed back (${origin})`, () => {
      const r = seededRandom(17);
      const p = new NamespaceProcessor({ semconv: 'otlp' });
      const spans = Array.from({ length: 50 }, (_, i) => span(r, realisticAttrs(i)));
      expect(compare(spans, origin, p)).toBe(spans.length);
      // Outputs are canonical, so a second pass also goes fast and changes nothing.
      const once = spans.map(cloneForNamespace);
      p.process({ origin, spans: once });
      expect(compare(once, origin, p)).toBe(spans.length);
    });
  }

  it('takes Agenta SDK style spans (ag.type.node, @ag.type=json:, references) on the fast path', () => {
    const r = seededRandom(23);
    const p = new NamespaceProcessor({ semconv: 'otlp' });
    const spans = Array.from({ length: 20 }, (_, i) => span(r, agentaAttrs(i)));
    expect(compare(spans, 'otlp', p)).toBe(spans.length);
  });

  it('takes a slot whose keys come in interrupted groups, in the order the full path writes them', () => {
    // What an OpenAI instrumentation sends: gen_ai maps response.model, then the request parameters, then
    // response.id, so ag.meta's `response` group is interrupted by `request`. Explicit ag keys too, and a
    // reference whose fields are apart. Each span fast and equal to the full path, regrouped.
    const r = seededRandom(31);
    const p = new NamespaceProcessor({ semconv: 'otlp' });
    const spans = Array.from({ length: 10 }, (_, i) => span(r, new Map<string, AttrValue>([
      ['gen_ai.operation.name', 'chat'], ['gen_ai.response.model', 'gpt-4o-2024-08-06'], ['gen_ai.request.temperature', 0.2],
      ['gen_ai.request.max_tokens', 1024], ['gen_ai.response.id', `chatcmpl-${i}`],
      ['ag.data.inputs.a.x', 1], ['ag.data.inputs.b', 2], ['ag.data.inputs.a.y', 3],
      ['ag.references.application.id', '4bf92f35-77b3-4da6-a3ce-929d0e0e4736'], ['ag.references.evaluator.slug', 'judge'],
      ['ag.references.application.slug', 'my-app'],
    ])));
    expect(compare(spans, 'otlp', p)).toBe(spans.length);
    const out = spans.map(cloneForNamespace);
    p.process({ origin: 'otlp', spans: out });
    const keys = [...out[0].attributes.keys()].filter((k) => k.startsWith('ag.meta') || k.startsWith('ag.data'));
    expect(keys).toEqual([
      'ag.data.inputs.a.x', 'ag.data.inputs.a.y', 'ag.data.inputs.b', 'ag.meta.response.model', 'ag.meta.response.id',
      'ag.meta.request.max_tokens', 'ag.meta.request.temperature', // in gen_ai's row order
    ]);
    expect(out[0].references?.map((ref) => [ref.attributes.get('key'), ref.slug])).toEqual([['application', 'my-app'], ['evaluator', 'judge']]);
  });

  it('gives the same slots after its key memo filled and was cleared, long keys included', () => {
    // More distinct keys than the memo holds (4096), some longer than it keeps (128 characters), then
    // spans whose keys were memoised before the clear: every span fast, every one equal to the full path.
    const r = seededRandom(29);
    const p = new NamespaceProcessor({ semconv: 'otlp' });
    const roots = ['ag.data.inputs', 'ag.meta', 'ag.flags', 'ag.data.internals', 'ag.tags'];
    const spans: Span[] = [];
    for (let i = 0; i < 1200; i++) {
      const attributes: Attributes = new Map();
      for (let j = 0; j < 5; j++) attributes.set(`${roots[j]}.k${i}${i % 50 === 0 ? 'x'.repeat(130) : ''}`, `v${i}`);
      spans.push(span(r, attributes));
    }
    spans.push(...Array.from({ length: 10 }, (_, i) => span(r, realisticAttrs(i))));
    expect(compare(spans, 'otlp', p)).toBe(spans.length);
  });

  it('keeps the full path when propagate_metrics needs the token trees', () => {
    const r = seededRandom(19);
    const p = new NamespaceProcessor({ semconv: 'otlp', propagate_metrics: true });
    const spans = Array.from({ length: 10 }, (_, i) => span(r, realisticAttrs(i)));
    expect(compare(spans, 'otlp', p)).toBe(0);
  });
});
