// What one chat call (test/llm-sdks/fake-openai.ts answering, the question below asked) must land as,
// whichever SDK traced it: the same span type, `ag.data` and token counts.
export const QUESTION = 'What is the capital of France?';
export const ANSWER = 'Paris';

export const SAME_CALL: Record<string, unknown> = {
  'ag.type.span': 'chat',
  'ag.data.inputs.prompt.0.role': 'system',
  'ag.data.inputs.prompt.0.content': 'Answer in one word.',
  'ag.data.inputs.prompt.1.role': 'user',
  'ag.data.inputs.prompt.1.content': QUESTION,
  'ag.data.outputs.completion.0.role': 'assistant',
  'ag.data.outputs.completion.0.content': ANSWER,
  'ag.metrics.tokens.incremental.prompt': 21,
  'ag.metrics.tokens.incremental.completion': 1,
  'ag.metrics.tokens.incremental.total': 22,
};

/** The model slots where the SDK records both models: the one asked for and the one that answered. */
export const MODEL_SLOTS = { 'ag.meta.request.model': 'gpt-4o-mini', 'ag.meta.response.model': 'gpt-4o-mini-2024-07-18' };

/** The span type, every ag.data key and the prompt, completion and total token counts of a record's attributes. */
export function sameCallPart(attributes: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(attributes).filter(([k]) => k.startsWith('ag.data.') || k === 'ag.type.span' ||
    ['prompt', 'completion', 'total'].some((t) => k === `ag.metrics.tokens.incremental.${t}`)));
}
