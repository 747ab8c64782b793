// OpenTelemetry GenAI semantic conventions (ag-namespace.md §6.4).
import type { AttrValue, Attributes } from '../../../model/span.ts';
import { isPlainObject } from '../keys.ts';
import { decodeJson, joinTextParts, lowerType, put, putValue, type Family, type Row } from './rows.ts';
import type { RowOutput } from './planned-output.ts';

const OPERATION_TYPES: Record<string, string> = {
  chat: 'chat',
  text_completion: 'completion',
  generate_content: 'completion',
  embeddings: 'embedding',
  execute_tool: 'tool',
  invoke_agent: 'agent',
  create_agent: 'agent',
};

/** Row 1: known operations map to their type, any other string is a task. */
function operationType(value: string): string {
  return Object.hasOwn(OPERATION_TYPES, value) ? OPERATION_TYPES[value] : 'task';
}

const TOTAL = 'ag.metrics.tokens.incremental.total';

/** Row 10: the client's total, else the sum of the prompt and completion numbers rows 8 and 9 gave. */
function totalTokens(attrs: Attributes, out: RowOutput): void {
  const total = attrs.get('gen_ai.usage.total_tokens');
  if (total !== undefined) { put(out, TOTAL, total); return; }
  const p = out.get('ag.metrics.tokens.incremental.prompt');
  const c = out.get('ag.metrics.tokens.incremental.completion');
  if (typeof p === 'number' && typeof c === 'number') put(out, TOTAL, p + c);
  else if (typeof p === 'bigint' && typeof c === 'bigint') put(out, TOTAL, p + c);
  else if ((typeof p === 'bigint' || typeof p === 'number') && (typeof c === 'bigint' || typeof c === 'number')) {
    put(out, TOTAL, Number(p) + Number(c));
  }
}

/**
 * A message in the GenAI conventions' parts form (`{"role", "parts": [{"type": "text", "content"}]}`)
 * whose parts are all text reads as `{"role", "content"}` (joinTextParts).
 */
function textMessage(message: unknown): unknown {
  return joinTextParts(message, 'parts', 'content');
}

/** gen_ai.input.messages / gen_ai.output.messages: the decoded list, text-only messages in content form. */
function messages(attrs: Attributes, out: RowOutput, src: string, dst: string): void {
  const v = attrs.get(src);
  if (v === undefined) return;
  const decoded = decodeJson(v);
  putValue(out, dst, Array.isArray(decoded) ? decoded.map(textMessage) : decoded);
}

/**
 * `gen_ai.system_instructions` (parts, `[{"type": "text", "content"}]`, or plain text) as the system
 * message it was before an SDK split it out: the Vercel AI SDK 7 sends a system prompt only there, where
 * OpenLLMetry, OpenInference and Langfuse send it as the first input message.
 */
function systemMessage(value: AttrValue): unknown {
  const decoded = decodeJson(value);
  if (Array.isArray(decoded)) return textMessage({ role: 'system', parts: decoded });
  if (isPlainObject(decoded)) return textMessage({ role: 'system', parts: [decoded] });
  return { role: 'system', content: decoded };
}

/**
 * The input messages, as the list `messages` decodes, led by the system instructions when there are any.
 * Messages that are not a list have no place for the instructions: they are copied apart, to
 * `ag.meta.system_instructions` (decided here, where the messages are decoded, not by parsing them again).
 */
function inputMessages(attrs: Attributes, out: RowOutput): void {
  const v = attrs.get('gen_ai.input.messages');
  const instructions = attrs.get('gen_ai.system_instructions');
  if (instructions === undefined) { messages(attrs, out, 'gen_ai.input.messages', 'ag.data.inputs.prompt'); return; }
  const decoded = v === undefined ? [] : decodeJson(v);
  if (!Array.isArray(decoded)) {
    putValue(out, 'ag.data.inputs.prompt', decoded);
    put(out, 'ag.meta.system_instructions', instructions);
    return;
  }
  putValue(out, 'ag.data.inputs.prompt', [systemMessage(instructions), ...decoded.map(textMessage)]);
}

/**
 * The reply's messages, each without its `finish_reason`: that is the response's metadata, where
 * `gen_ai.response.finish_reasons` puts it (and that attribute, when sent, wins), not part of what was
 * said, so the completion reads the same as OpenInference's, whose messages carry none.
 */
function outputMessages(attrs: Attributes, out: RowOutput): void {
  const v = attrs.get('gen_ai.output.messages');
  if (v === undefined) return;
  const decoded = decodeJson(v);
  if (!Array.isArray(decoded)) { putValue(out, 'ag.data.outputs.completion', decoded); return; }
  const reasons: string[] = [];
  const replies = decoded.map((message) => {
    if (!isPlainObject(message) || typeof message.finish_reason !== 'string') return textMessage(message);
    const { finish_reason: reason, ...rest } = message;
    reasons.push(reason as string);
    return textMessage(rest);
  });
  putValue(out, 'ag.data.outputs.completion', replies);
  if (reasons.length > 0) put(out, 'ag.meta.response.finish_reasons', reasons);
}

const REQUEST_PARAMS = [
  'max_tokens', 'temperature', 'top_p', 'top_k', 'presence_penalty', 'frequency_penalty', 'stop_sequences', 'seed',
  'streaming', 'base_url', 'endpoint', 'headers',
];

const rows: Row[] = [
  { kind: 'type', src: 'gen_ai.operation.name', map: operationType },
  { kind: 'type', src: 'gen_ai.request.type', map: lowerType },
  { kind: 'copy', src: 'gen_ai.request.model', dst: 'ag.meta.request.model' },
  { kind: 'copy', src: 'gen_ai.response.model', dst: 'ag.meta.response.model' },
  ...REQUEST_PARAMS.map((p): Row => ({ kind: 'copy', src: 'gen_ai.request.' + p, dst: 'ag.meta.request.' + p })),
  { kind: 'copy', src: 'gen_ai.response.finish_reasons', dst: 'ag.meta.response.finish_reasons' },
  { kind: 'copy', src: 'gen_ai.response.id', dst: 'ag.meta.response.id' },
  { kind: 'copy', src: 'gen_ai.system', dst: 'ag.meta.system' },
  { kind: 'copy', src: 'gen_ai.provider.name', dst: 'ag.meta.provider.name' },
  { kind: 'copy', src: 'gen_ai.output.type', dst: 'ag.meta.output.type' },
  { kind: 'copy', src: 'gen_ai.conversation.id', dst: 'ag.session.id' },
  { kind: 'copy', src: 'gen_ai.usage.input_tokens', dst: 'ag.metrics.tokens.incremental.prompt' },
  { kind: 'copy', src: 'gen_ai.usage.prompt_tokens', dst: 'ag.metrics.tokens.incremental.prompt' },
  { kind: 'copy', src: 'gen_ai.usage.output_tokens', dst: 'ag.metrics.tokens.incremental.completion' },
  { kind: 'copy', src: 'gen_ai.usage.completion_tokens', dst: 'ag.metrics.tokens.incremental.completion' },
  { kind: 'custom', dst: TOTAL, sources: ['gen_ai.usage.'], note: "the client's `gen_ai.usage.total_tokens`, else prompt + completion", run: totalTokens },
  { kind: 'copy', src: 'gen_ai.usage.cache_read.input_tokens', dst: 'ag.metrics.tokens.incremental.cache_read' },
  { kind: 'copy', src: 'gen_ai.usage.cache_creation.input_tokens', dst: 'ag.metrics.tokens.incremental.cache_creation' },
  { kind: 'custom', dst: 'ag.data.inputs.prompt', sources: ['gen_ai.input.messages', 'gen_ai.system_instructions'], note: 'JSON text decoded; a message whose parts are all text as `content`; `gen_ai.system_instructions` as a leading `system` message (copied to `ag.meta.system_instructions` when the messages are not a list)', run: inputMessages },
  { kind: 'custom', dst: 'ag.data.outputs.completion', sources: ['gen_ai.output.messages'], note: 'JSON text decoded; a message whose parts are all text as `content`; each message\'s `finish_reason` to `ag.meta.response.finish_reasons` (unless `gen_ai.response.finish_reasons` gave them)', run: outputMessages },
  { kind: 'json', src: 'gen_ai.tool.definitions', dst: 'ag.data.inputs.tools' },
  { kind: 'copy', src: 'gen_ai.is_streaming', dst: 'ag.meta.request.streaming' },
  { kind: 'copy', src: 'gen_ai.request.stream', dst: 'ag.meta.request.streaming' },
  { kind: 'copy', src: 'gen_ai.tool.name', dst: 'ag.meta.tool.name' },
  { kind: 'copy', src: 'gen_ai.tool.call.id', dst: 'ag.meta.tool.call.id' },
  { kind: 'copy', src: 'gen_ai.tool.call.arguments', dst: 'ag.meta.tool.call.arguments' },
  { kind: 'copy', src: 'gen_ai.tool.call.result', dst: 'ag.meta.tool.call.result' },
];

export const genai: Family = { name: 'gen_ai', triggers: ['gen_ai.'], rows };
