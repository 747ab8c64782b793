// The semantic-convention rows on what real SDKs sent (test/fixtures/sdk-payloads, captured by
// test/llm-sdks/capture.ts): the chat call of every captured SDK gives the same span type, ag.data and
// token counts, and each SDK's own spans (traceloop's decorators, Langfuse's observations, the Vercel AI
// SDK's operation spans) land where the README's tables say. The live runs are test/python/same-call.test.ts
// and test/llm-sdks/vercel.test.ts; these run without Python or the npm SDKs.
import { describe, expect, it } from 'vitest';
import type { Span } from '../../../model/span.ts';
import { silentLogger } from '../../../pipeline/log.ts';
import { CAPTURE_ANSWER, CAPTURE_QUESTION, capturedSpans, fillSlots, type CapturedSdk } from '../../../test/llm-sdks/payloads.ts';
import { sameCallPart } from '../../../test/llm-sdks/expected.ts';
import { factory as namespace } from '../factory.ts';

const slotText = (n: number) => `<slot ${n}>`;
const QUESTION = CAPTURE_QUESTION.replace(/SEEDSLOT(\d)/g, (_m, n: string) => slotText(Number(n)));
const ANSWER = CAPTURE_ANSWER.replace(/SEEDSLOT(\d)/g, (_m, n: string) => slotText(Number(n)));

function namespaced(sdk: CapturedSdk): Span[] {
  const spans = capturedSpans(sdk);
  for (const span of spans) fillSlots(span, slotText);
  namespace.create({ semconv: 'all', propagate_metrics: false }, { id: 'namespace', logger: silentLogger }).process({ origin: 'otlp', spans });
  return spans;
}

const attrs = (span: Span) => Object.fromEntries(span.attributes);
const named = (spans: Span[], name: string) => spans.find((s) => s.name === name)!;

describe('the rows on captured SDK payloads', () => {
  it('one chat call: the same span type, ag.data and tokens from every SDK', () => {
    const chats = {
      openinference: named(namespaced('openinference'), 'ChatCompletion'),
      openllmetry: named(namespaced('openllmetry'), 'openai.chat'),
      traceloop: named(namespaced('traceloop'), 'openai.chat'),
      langfuse: named(namespaced('langfuse'), 'OpenAI-generation'),
      'vercel-semconv': named(namespaced('vercel-semconv'), 'chat gpt-4o-mini'),
      'vercel-legacy': named(namespaced('vercel-legacy'), 'ai.generateText.doGenerate'),
    };
    for (const [sdk, span] of Object.entries(chats)) {
      expect(sameCallPart(attrs(span)), sdk).toEqual({
        'ag.type.span': 'chat',
        'ag.data.inputs.prompt.0.role': 'system', 'ag.data.inputs.prompt.0.content': 'Answer in one word.',
        'ag.data.inputs.prompt.1.role': 'user', 'ag.data.inputs.prompt.1.content': QUESTION,
        'ag.data.outputs.completion.0.role': 'assistant', 'ag.data.outputs.completion.0.content': ANSWER,
        'ag.metrics.tokens.incremental.prompt': 21, 'ag.metrics.tokens.incremental.completion': 1, 'ag.metrics.tokens.incremental.total': 22,
      });
      expect(span.spanType, sdk).toBe('chat');
    }
  });

  it("traceloop's decorators: arguments as inputs, the return value as outputs", () => {
    const spans = namespaced('traceloop');
    const data = (name: string) => Object.fromEntries(Object.entries(attrs(named(spans, name))).filter(([k]) => k.startsWith('ag.data.') || k === 'ag.type.span'));
    expect(data('capital_quiz.workflow')).toEqual({ 'ag.type.span': 'workflow', 'ag.data.inputs.args': [QUESTION], 'ag.data.outputs.answer': ANSWER });
    expect(data('ask_model.task')).toEqual({ 'ag.type.span': 'task', 'ag.data.inputs.prompt': QUESTION, 'ag.data.outputs': ANSWER });
    expect(data('capital_lookup.tool')).toEqual({ 'ag.type.span': 'tool', 'ag.data.inputs.args': ['France'], 'ag.data.outputs.country': 'France', 'ag.data.outputs.source': 'atlas' });
  });

  it("Langfuse: the drop-in's one model in both slots and its parameters; the observations' usage, costs and trace fields", () => {
    const generation = attrs(named(namespaced('langfuse'), 'OpenAI-generation'));
    expect(generation).toMatchObject({
      'ag.meta.request.model': 'gpt-4o-mini-2024-07-18', 'ag.meta.response.model': 'gpt-4o-mini-2024-07-18',
      'ag.meta.request.temperature': 0.2, 'ag.meta.request.max_tokens': 16, 'ag.meta.environment': 'test',
    });
    const manual = namespaced('langfuse-manual');
    expect(attrs(named(manual, 'chat'))).toMatchObject({
      'ag.type.span': 'chat', 'ag.metrics.tokens.incremental.total': 15, 'ag.metrics.costs.incremental.total': 0.0036,
      'ag.meta.trace.name': 'qa', 'ag.meta.tags': ['demo'], 'ag.user.id': 'user-7', 'ag.session.id': 'session-3',
    });
    expect(attrs(named(manual, 'agent'))).toMatchObject({ 'ag.type.span': 'agent', 'ag.data.inputs.question': 'capital of France?', 'ag.data.outputs.answer': 'Paris' });
  });

  it('the Vercel AI SDK: the operation spans around the model call', () => {
    const semconv = namespaced('vercel-semconv');
    expect(semconv.map((s) => s.spanType).sort()).toEqual(['agent', 'chat', 'task']);
    expect(sameCallPart(attrs(named(semconv, 'invoke_agent gpt-4o-mini')))).toMatchObject({ 'ag.type.span': 'agent', 'ag.data.inputs.prompt.1.content': QUESTION });
    const legacy = attrs(named(namespaced('vercel-legacy'), 'ai.generateText'));
    expect(sameCallPart(legacy)).toMatchObject({ 'ag.type.span': 'task', 'ag.data.inputs.system': 'Answer in one word.', 'ag.data.outputs': ANSWER });
  });
});
