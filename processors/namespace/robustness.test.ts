// Property checks: random ag-heavy attributes never make the processor throw, and every output is a
// fixed point (running the processor again changes nothing, key order included).
import { describe, expect, it } from 'vitest';
import type { BatchOrigin, WorkingBatch } from '../../model/batch.ts';
import { syncChain } from '../../pipeline/component.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { AttrValue, Attributes, Span } from '../../model/span.ts';
import { NamespaceProcessor } from './processor.ts';
import { seededRandom, pickWith } from '../../test/helpers/random.ts';

const pick = pickWith;

const HEADS = [
  'ag', 'ag.type', 'ag.type.span', 'ag.type.trace', 'ag.type.node', 'ag.data', 'ag.data.inputs', 'ag.data.outputs',
  'ag.data.parameters', 'ag.data.internals', 'ag.metrics', 'ag.metrics.duration', 'ag.metrics.errors.incremental',
  'ag.metrics.tokens.incremental', 'ag.metrics.costs.cumulative', 'ag.metrics.unit.tokens', 'ag.metrics.acc.costs',
  'ag.metrics.acc.duration.total', 'ag.references', 'ag.references.application', 'ag.references.variant',
  'ag.refs.environment', 'ag.refs', 'ag.session', 'ag.session.id', 'ag.user.id', 'ag.flags', 'ag.tags', 'ag.meta',
  'ag.meta.configuration', 'ag.exception', 'ag.selector', 'ag.unsupported', 'ag.unsupported._shadowed', 'ag.custom',
  'gen_ai.request.model', 'gen_ai.usage.input_tokens', 'gen_ai.input.messages', 'gen_ai.operation.name',
  'llm.input_messages.0.message', 'llm.token_count', 'openinference.span.kind', 'input.value', 'ai.operationId',
  'ai.prompt', 'ai.response.text', 'traceloop.entity.input', 'other', 'x.y',
];
const TAILS = ['', '', '.id', '.slug', '.version', '.0', '.1', '.2', '.total', '.prompt', '.a', '.a.b', '.', '.span'];
const VALUES: AttrValue[] = [
  'llm', 'chat', 'Workflow', 'annotation', 'unknown', 'x', '', '{"q":"hi"}', '[1,2]', '@ag.type=json:{"a":{"b":1}}',
  '@ag.type=json:[1,{"c":2}]', '@ag.type=none:', '@ag.type=json:bad', '4BF92F35-77B3-4DA6-A3CE-929D0E0E4736', 'my-app',
  0, 1, 5, -1, 2.5, true, false, null, [], ['a', 1], [null], 12345678901234567890n, '[{"role":"user","content":"x"}]',
  '{"inputs":{"k":"v"}}',
];

function randomAttrs(r: () => number): Attributes {
  const m: Attributes = new AttributeList();
  const n = 1 + Math.floor(r() * 10);
  for (let i = 0; i < n; i++) m.set(pick(r, HEADS) + pick(r, TAILS), pick(r, VALUES));
  return m;
}

let id = 1;
function randomSpan(r: () => number): Span {
  const start = 1_776_363_498_000_000_000n;
  return {
    traceId: pick(r, ['11111111111111111111111111111111', '22222222222222222222222222222222']),
    spanId: (id++).toString(16).padStart(16, '0'),
    parentId: r() < 0.5 ? undefined : (Math.max(1, id - 2)).toString(16).padStart(16, '0'),
    name: 'op',
    kind: 1,
    startNs: start,
    endNs: start + BigInt(Math.floor(r() * 3e9)) - 1_000_000_000n,
    status: { code: 0 },
    attributes: randomAttrs(r),
    events: r() < 0.3 ? [{ name: 'exception', timeNs: start, attributes: new AttributeList() }] : r() < 0.5 ? [] : undefined,
    links: r() < 0.2 ? [] : undefined,
    spanType: r() < 0.3 ? 'tool' : undefined,
  };
}

function clone(s: Span): Span {
  return { ...s, attributes: new AttributeList(s.attributes) };
}

describe('namespace robustness', () => {
  for (const [origin, propagate] of [['tracing', false], ['otlp', false], ['otlp', true]] as const) {
    it(`never throws and is idempotent (${origin}${propagate ? ', propagate_metrics' : ''})`, () => {
      const r = seededRandom(origin === 'otlp' ? (propagate ? 7 : 5) : 3);
      const chain = syncChain([new NamespaceProcessor({ semconv: 'otlp', propagate_metrics: propagate })]);
      const p = { process: (batch: WorkingBatch) => { for (const step of chain) step.process(batch); } };
      for (let round = 0; round < 400; round++) {
        const spans = [randomSpan(r), randomSpan(r), randomSpan(r)];
        p.process({ origin: origin as BatchOrigin, spans });
        const again = spans.map(clone);
        p.process({ origin: origin as BatchOrigin, spans: again });
        for (let i = 0; i < spans.length; i++) {
          expect([...again[i].attributes]).toEqual([...spans[i].attributes]);
          expect([again[i].spanType, again[i].traceType, again[i].sessionId, again[i].userId])
            .toEqual([spans[i].spanType, spans[i].traceType, spans[i].sessionId, spans[i].userId]);
        }
      }
    });
  }
});
