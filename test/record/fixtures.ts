// Spans for the record and exporter tests.
import { AttributeList } from '../../model/attributes/list.ts';
import type { Span } from '../../model/span.ts';

export const T0 = BigInt(Date.parse('2026-04-16T18:18:18Z')) * 1_000_000n;

/** A realistic span after `namespace`: ten attributes, resource and scope. `i` makes the span id unique. */
export function sampleSpan(i = 0, extra?: Partial<Span>): Span {
  return {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: (0x1000000000000000n + BigInt(i)).toString(16),
    parentId: 'a1b2c3d4e5f60718',
    name: `chat ${i}`,
    kind: 3,
    // Nine fraction digits on both times for every small i, so spans 0..9 encode to equal lengths.
    startNs: T0 + 123_456_789n + BigInt(i) * 1000n,
    endNs: T0 + 123_456_789n + BigInt(i) * 1000n + 1_376_543_210n,
    status: { code: 1 },
    spanType: 'chat',
    traceType: 'invocation',
    attributes: new AttributeList([
      ['ag.type.span', 'chat'],
      ['ag.type.trace', 'invocation'],
      ['ag.data.inputs.prompt.0.role', 'user'],
      ['ag.data.inputs.prompt.0.content', 'What is the capital of France? Please answer briefly.'],
      ['ag.data.outputs.completion.0.content', 'Paris is the capital of France.'],
      ['ag.metrics.duration.cumulative', 1376.543211],
      ['ag.metrics.tokens.incremental.prompt', 12],
      ['ag.metrics.tokens.incremental.completion', 8],
      ['ag.meta.request.model', 'gpt-4o'],
      ['gen_ai.request.model', 'gpt-4o'],
    ]),
    resource: new AttributeList([['service.name', 'shop']]),
    scope: { name: 'openai-instrumentation', version: '1.2.0' },
    ...extra,
  };
}

export function sampleSpans(count: number, from = 0): Span[] {
  const spans: Span[] = [];
  for (let i = 0; i < count; i++) spans.push(sampleSpan(from + i));
  return spans;
}
