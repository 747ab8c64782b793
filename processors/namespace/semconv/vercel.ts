// Vercel AI SDK `ai.*` attributes (ag-namespace.md §6.5), the highest-precedence family.
import type { Attributes } from '../../../model/span.ts';
import { decodeJson, joinTextParts, put, putFinishReasons, putValue, type Family, type Row } from './rows.ts';
import type { RowOutput } from './planned-output.ts';

const EMBED_OPERATIONS = new Set(['ai.embed', 'ai.embed.doEmbed', 'ai.embedMany', 'ai.embedMany.doEmbed']);

/** The spans of the provider call itself (one per step of generateText, streamText, ...): a chat call. */
const MODEL_CALL_OPERATIONS = new Set(['ai.generateText.doGenerate', 'ai.streamText.doStream', 'ai.generateObject.doGenerate', 'ai.streamObject.doStream']);

function operationType(value: string): string | undefined {
  if (value === '') return undefined;
  if (value === 'ai.toolCall') return 'tool';
  if (MODEL_CALL_OPERATIONS.has(value)) return 'chat';
  return EMBED_OPERATIONS.has(value) ? 'embedding' : 'task';
}

function isModelCall(attrs: Attributes): boolean {
  const op = attrs.get('ai.operationId');
  return typeof op === 'string' && MODEL_CALL_OPERATIONS.has(op);
}

/**
 * Row 12: the text is the whole output, or `outputs.text` when tool calls sit beside it (two targets,
 * so two rows: each is claimed on its own). On a model call's span the text is the reply message,
 * `outputs.completion.0` as every other family's chat call has it.
 */
function responseText(attrs: Attributes, out: RowOutput): void {
  const v = attrs.get('ai.response.text');
  if (v === undefined || attrs.has('ai.response.toolCalls')) return;
  if (!isModelCall(attrs)) { put(out, 'ag.data.outputs', v); return; }
  put(out, 'ag.data.outputs.completion.0.role', 'assistant');
  put(out, 'ag.data.outputs.completion.0.content', v);
}

/**
 * The SDK's messages (`ai.prompt.messages`), whose content is text or a list of parts
 * (`[{"type": "text", "text"}]`): text-only parts joined as `content`, the form the other families'
 * messages land in. A message with any other part (an image, a tool call) keeps its parts.
 */
function promptMessages(attrs: Attributes, out: RowOutput): void {
  const v = attrs.get('ai.prompt.messages');
  if (v === undefined) return;
  const decoded = decodeJson(v);
  putValue(out, 'ag.data.inputs.prompt', Array.isArray(decoded) ? decoded.map(textContent) : decoded);
}

/** `{"role", "content": [{"type": "text", "text"}]}` with only text parts: `{"role", "content": "<texts>"}`. */
function textContent(message: unknown): unknown {
  return joinTextParts(message, 'content', 'text');
}

function responseTextBesideToolCalls(attrs: Attributes, out: RowOutput): void {
  const v = attrs.get('ai.response.text');
  if (v !== undefined && attrs.has('ai.response.toolCalls')) put(out, 'ag.data.outputs.text', v);
}

/** Row 16: a single finish reason becomes a one-element list, like gen_ai's finish_reasons. */
function finishReason(attrs: Attributes, out: RowOutput): void {
  putFinishReasons(attrs, out, 'ai.response.finishReason');
}

const SETTINGS: [string, string][] = [
  ['temperature', 'temperature'], ['topP', 'top_p'], ['topK', 'top_k'], ['maxOutputTokens', 'max_tokens'],
  ['frequencyPenalty', 'frequency_penalty'], ['presencePenalty', 'presence_penalty'],
  ['stopSequences', 'stop_sequences'], ['seed', 'seed'], ['maxRetries', 'max_retries'],
];

const rows: Row[] = [
  { kind: 'type', src: 'ai.operationId', map: operationType },
  { kind: 'copy', src: 'ai.model.id', dst: 'ag.meta.request.model' },
  { kind: 'copy', src: 'ai.model.provider', dst: 'ag.meta.system' },
  { kind: 'copy', src: 'ai.response.model', dst: 'ag.meta.response.model' },
  { kind: 'copy', src: 'ai.response.id', dst: 'ag.meta.response.id' },
  { kind: 'copy', src: 'ai.response.timestamp', dst: 'ag.meta.response.timestamp' },
  ...SETTINGS.map(([s, d]): Row => ({ kind: 'copy', src: 'ai.settings.' + s, dst: 'ag.meta.request.' + d })),
  { kind: 'copy', src: 'ai.usage.promptTokens', dst: 'ag.metrics.tokens.incremental.prompt' },
  { kind: 'copy', src: 'ai.usage.inputTokens', dst: 'ag.metrics.tokens.incremental.prompt' },
  { kind: 'copy', src: 'ai.usage.completionTokens', dst: 'ag.metrics.tokens.incremental.completion' },
  { kind: 'copy', src: 'ai.usage.outputTokens', dst: 'ag.metrics.tokens.incremental.completion' },
  { kind: 'copy', src: 'ai.usage.totalTokens', dst: 'ag.metrics.tokens.incremental.total' },
  { kind: 'copy', src: 'ai.usage.reasoningTokens', dst: 'ag.metrics.tokens.incremental.reasoning' },
  { kind: 'copy', src: 'ai.usage.cachedInputTokens', dst: 'ag.metrics.tokens.incremental.cached' },
  { kind: 'json', src: 'ai.prompt', dst: 'ag.data.inputs' },
  { kind: 'custom', dst: 'ag.data.inputs.prompt', sources: ['ai.prompt.messages'], note: 'JSON text decoded; a message whose content parts are all text as one `content` string', run: promptMessages },
  { kind: 'copy', src: 'ai.toolCall.name', dst: 'ag.data.inputs.name' },
  { kind: 'json', src: 'ai.toolCall.args', dst: 'ag.data.inputs.args' },
  { kind: 'custom', dst: 'ag.data.outputs', sources: ['ai.response.text'], note: 'the text, when no tool calls sit beside it; on a model call (`doGenerate`, `doStream`) as `completion.0`, an assistant message', run: responseText },
  { kind: 'custom', dst: 'ag.data.outputs.text', sources: ['ai.response.text'], note: 'the text, when tool calls sit beside it', run: responseTextBesideToolCalls },
  { kind: 'json', src: 'ai.response.object', dst: 'ag.data.outputs' },
  { kind: 'json', src: 'ai.response.toolCalls', dst: 'ag.data.outputs.toolCalls' },
  { kind: 'json', src: 'ai.toolCall.result', dst: 'ag.data.outputs' },
  { kind: 'custom', dst: 'ag.meta.response.finish_reasons', sources: ['ai.response.finishReason'], note: 'a one-element list', run: finishReason },
  { kind: 'copy', src: 'ai.telemetry.metadata.userId', dst: 'ag.user.id' },
  { kind: 'copy', src: 'ai.telemetry.metadata.sessionId', dst: 'ag.session.id' },
];

export const vercel: Family = { name: 'vercel', triggers: ['ai.'], rows };
