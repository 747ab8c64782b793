// One chat call, made by the OpenAI Python SDK against a local OpenAI-compatible server and traced by
// real, unmodified SDKs (pinned in requirements-llm.txt): OpenInference's and OpenLLMetry's OpenAI
// instrumentations, the traceloop SDK with the call inside its @workflow/@task decorators (beside a
// @tool), and the Langfuse SDK's OpenAI drop-in, which posts to /api/public/otel/v1/traces. namespace gives
// each the same span type, `ag.data` and token counts (test/llm-sdks/expected.ts; the Vercel AI SDK's
// run is test/llm-sdks/vercel.test.ts). The decorators' own spans carry their arguments and return values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/process.ts';
import { startDaemon, type Daemon } from '../helpers/daemon.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../llm-sdks/fake-openai.ts';
import { ANSWER, MODEL_SLOTS, QUESTION, SAME_CALL, sameCallPart } from '../llm-sdks/expected.ts';
import { NewSpans, SAME_CALL_DAEMON_CONFIG, type SpanRecord } from '../llm-sdks/same-call-daemon.ts';
import { PYTHON_DIR, VENV_SETUP_TIMEOUT_MS, venvPython } from './venv.ts';

let python: string;
let openai: FakeOpenAI;
let daemon: Daemon;
let spans: NewSpans;

beforeAll(async () => {
  python = await venvPython('requirements-llm.txt');
  openai = await startFakeOpenAI({ content: ANSWER });
  daemon = await startDaemon(SAME_CALL_DAEMON_CONFIG);
  spans = new NewSpans(daemon);
}, VENV_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await daemon?.stop();
  await openai?.close();
});

/** Runs one SDK's call; returns the records of the spans it sent (those not seen before), once `count` are in. */
async function sdkRun(sdk: string, count: number): Promise<SpanRecord[]> {
  const run = await runProcess(python, [`${PYTHON_DIR}chat_call.py`, sdk, daemon.url('otlp'), openai.url]);
  expect(run.stderr).not.toContain('Traceback');
  // The answer is the last line: the traceloop SDK prints banners before it.
  expect(run.stdout.trim().split('\n').pop()).toBe(ANSWER);
  return spans.next(count);
}

const chatOf = (records: SpanRecord[]) => records.find((r) => r.span_type === 'chat')!;

describe('one chat call, four SDKs', () => {
  it('OpenInference, OpenLLMetry, traceloop and Langfuse give the same ag.data and tokens', async () => {
    const openinference = chatOf(await sdkRun('openinference', 1));
    const openllmetry = chatOf(await sdkRun('openllmetry', 1));
    const traceloop = chatOf(await sdkRun('traceloop', 4));
    const langfuse = chatOf(await sdkRun('langfuse', 1));
    for (const record of [openinference, openllmetry, traceloop, langfuse]) expect(sameCallPart(record.attributes)).toEqual(SAME_CALL);
    // Both models, and the finish reason, in the same slots.
    for (const record of [openinference, openllmetry, traceloop]) {
      expect(record.attributes).toMatchObject(MODEL_SLOTS);
      expect(record.attributes['ag.meta.response.finish_reasons']).toEqual(['stop']);
    }
    // The Langfuse drop-in records one model, the one the response names (langfuse.observation.model.name),
    // and no finish reason: the model it asked for is not in what it sends.
    expect(langfuse.attributes).toMatchObject({ 'ag.meta.request.model': 'gpt-4o-mini-2024-07-18', 'ag.meta.response.model': 'gpt-4o-mini-2024-07-18' });
    expect(langfuse.attributes['ag.meta.response.finish_reasons']).toBeUndefined();
  }, 180_000);

  it("traceloop's decorator spans carry their arguments and return values as ag.data", async () => {
    const records = await sdkRun('traceloop', 4);
    const byName = Object.fromEntries(records.map((r) => [r.span_name, r]));
    const data = (r: SpanRecord) => Object.fromEntries(Object.entries(r.attributes).filter(([k]) => k.startsWith('ag.data.') || k === 'ag.type.span' || k.startsWith('ag.meta.entity.') || k === 'ag.meta.workflow.name'));
    // capital_quiz(question): a positional argument; ask_model(prompt=question): a keyword argument.
    expect(data(byName['capital_quiz.workflow'])).toEqual({
      'ag.type.span': 'workflow', 'ag.data.inputs.args': [QUESTION], 'ag.data.outputs.answer': ANSWER,
      'ag.meta.entity.name': 'capital_quiz', 'ag.meta.workflow.name': 'capital_quiz',
    });
    expect(data(byName['ask_model.task'])).toEqual({
      'ag.type.span': 'task', 'ag.data.inputs.prompt': QUESTION, 'ag.data.outputs': ANSWER,
      'ag.meta.entity.name': 'ask_model', 'ag.meta.workflow.name': 'capital_quiz',
    });
    expect(data(byName['capital_lookup.tool'])).toEqual({
      'ag.type.span': 'tool', 'ag.data.inputs.args': ['France'], 'ag.data.outputs.country': 'France', 'ag.data.outputs.source': 'atlas',
      'ag.meta.entity.name': 'capital_lookup', 'ag.meta.workflow.name': 'capital_quiz',
    });
    // The chat call sits inside the task that made it.
    const chat = byName['openai.chat'];
    expect(chat.parent_id).toBe(byName['ask_model.task'].span_id);
    expect(chat.attributes['ag.meta.entity.path']).toBe('ask_model');
  }, 180_000);
});
