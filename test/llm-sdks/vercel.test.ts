// The Vercel AI SDK (packages `ai`, `@ai-sdk/openai`, `@ai-sdk/otel`), unmodified: one generateText call
// against a local OpenAI-compatible server, traced with `experimental_telemetry` by the OpenTelemetry JS
// SDK exporting OTLP/HTTP to tracehop, lands with the same ag.data, tokens and model slots as the Python
// SDKs' same call (test/python/same-call.test.ts). Both of the SDK's integrations: the default one (GenAI
// semantic conventions, `gen_ai.*`) and the legacy one (`ai.*`, as versions before 7 sent).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../helpers/daemon.ts';
import { ANSWER, MODEL_SLOTS, SAME_CALL, sameCallPart } from './expected.ts';
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai.ts';
import { NewSpans, SAME_CALL_DAEMON_CONFIG, type SpanRecord } from './same-call-daemon.ts';
import { vercelChatCall, type VercelIntegration } from './vercel-call.ts';

let openai: FakeOpenAI;
let daemon: Daemon;
let spans: NewSpans;

beforeAll(async () => {
  openai = await startFakeOpenAI({ content: ANSWER });
  daemon = await startDaemon(SAME_CALL_DAEMON_CONFIG);
  spans = new NewSpans(daemon);
});

afterAll(async () => {
  await daemon?.stop();
  await openai?.close();
});

async function call(integration: VercelIntegration, count: number): Promise<SpanRecord[]> {
  expect(await vercelChatCall({ tracesUrl: `${daemon.url('otlp')}/v1/traces`, openaiUrl: openai.url, integration })).toBe(ANSWER);
  return spans.next(count);
}

describe('one generateText call of the Vercel AI SDK', () => {
  it('the default integration (gen_ai.*): the chat span has the same ag.data, tokens and model slots as the others', async () => {
    const records = await call('semconv', 3);
    expect(records.map((r) => r.span_type).sort()).toEqual(['agent', 'chat', 'task']);
    const chat = records.find((r) => r.span_type === 'chat')!;
    expect(sameCallPart(chat.attributes)).toEqual(SAME_CALL);
    expect(chat.attributes).toMatchObject({ ...MODEL_SLOTS, 'ag.meta.response.finish_reasons': ['stop'] });
    // The system prompt came as gen_ai.system_instructions, apart from the messages: it leads the prompt.
    expect(chat.attributes['ag.meta.system_instructions']).toBeUndefined();
    // The agent span around it (invoke_agent) holds the same conversation.
    const agent = records.find((r) => r.span_type === 'agent')!;
    expect(Object.entries(sameCallPart(agent.attributes)).filter(([k]) => k.startsWith('ag.data.'))).toEqual(
      Object.entries(SAME_CALL).filter(([k]) => k.startsWith('ag.data.')));
    expect(chat.parent_id).toBe(records.find((r) => r.span_type === 'task')!.span_id);
  });

  it('the legacy integration (ai.*): the doGenerate span is the chat call, with the same ag.data, tokens and model slots', async () => {
    const records = await call('legacy', 2);
    const chat = records.find((r) => r.span_name === 'ai.generateText.doGenerate')!;
    expect(sameCallPart(chat.attributes)).toEqual(SAME_CALL);
    expect(chat.attributes).toMatchObject({ ...MODEL_SLOTS, 'ag.meta.response.finish_reasons': ['stop'] });
    // The generateText span around it is the function's call: its arguments and its text.
    const outer = records.find((r) => r.span_name === 'ai.generateText')!;
    expect(sameCallPart(outer.attributes)).toEqual({
      'ag.type.span': 'task', 'ag.data.inputs.system': 'Answer in one word.', 'ag.data.inputs.messages.0.role': 'user',
      'ag.data.inputs.messages.0.content': 'What is the capital of France?', 'ag.data.outputs': ANSWER,
      'ag.metrics.tokens.incremental.prompt': 21, 'ag.metrics.tokens.incremental.completion': 1, 'ag.metrics.tokens.incremental.total': 22,
    });
  });
});
