// OpenInference (Arize Phoenix) attributes (ag-namespace.md §6.3).
import type { Attributes } from '../../../model/span.ts';
import { isPlainObject } from '../keys.ts';
import { decodeJson, hasPrefix, put, putFinishReasons, putValue, type Family, type Row } from './rows.ts';
import type { RowOutput } from './planned-output.ts';

const KINDS: Record<string, string> = {
  CHAIN: 'chain', RETRIEVER: 'query', RERANKER: 'rerank', LLM: 'chat', EMBEDDING: 'embedding', AGENT: 'agent',
  TOOL: 'tool', GUARDRAIL: 'task', EVALUATOR: 'task',
};

function kindType(value: string): string | undefined {
  const k = value.toUpperCase();
  return Object.hasOwn(KINDS, k) ? KINDS[k] : undefined;
}

/** Rows 2/3: the raw value, unless this is a chat span whose messages carry the same content. */
function ioValue(attrs: Attributes, out: RowOutput, src: string, messages: string, dst: string): void {
  const v = attrs.get(src);
  if (v === undefined) return;
  if (out.get('ag.type.span') === 'chat' && hasPrefix(attrs, messages)) return;
  put(out, dst, v);
}

function inputValue(attrs: Attributes, out: RowOutput): void {
  ioValue(attrs, out, 'input.value', 'llm.input_messages.', 'ag.data.inputs');
}

function outputValue(attrs: Attributes, out: RowOutput): void {
  ioValue(attrs, out, 'output.value', 'llm.output_messages.', 'ag.data.outputs');
}

/** Row 6: invocation parameters are members of ag.meta.request, only when they decode to an object. */
function invocationParameters(attrs: Attributes, out: RowOutput): void {
  const v = attrs.get('llm.invocation_parameters');
  if (v === undefined) return;
  const decoded = decodeJson(v);
  if (isPlainObject(decoded)) putValue(out, 'ag.meta.request', decoded);
}

/**
 * `<i>.message.<rest>` -> `<i>.<rest>`, with `tool_calls.<j>.tool_call.` shortened to `tool_calls.<j>.`;
 * anything else below the message list keeps its path.
 */
export function messagePath(rest: string): string {
  const dot = rest.indexOf('.');
  if (dot < 0 || !rest.startsWith('message.', dot + 1)) return rest;
  let tail = rest.slice(dot + 9);
  if (tail.startsWith('tool_calls.')) {
    const j = tail.indexOf('.', 11);
    if (j >= 0 && tail.startsWith('tool_call.', j + 1)) tail = tail.slice(0, j + 1) + tail.slice(j + 11);
  }
  return rest.slice(0, dot + 1) + tail;
}

/** `llm.finish_reason` as a list at ag.meta.response.finish_reasons, as gen_ai's. */
function finishReason(attrs: Attributes, out: RowOutput): void {
  putFinishReasons(attrs, out, 'llm.finish_reason');
}

/** Row 11: `llm.tools.<i>.tool.json_schema` decoded to the tool itself, else kept raw under its path. */
function tools(attrs: Attributes, out: RowOutput): void {
  const prefix = 'llm.tools.';
  const suffix = '.tool.json_schema';
  for (const [k, v] of attrs) {
    if (!k.startsWith(prefix) || !k.endsWith(suffix) || k.length <= prefix.length + suffix.length) continue;
    const i = k.slice(prefix.length, k.length - suffix.length);
    if (i.includes('.')) continue;
    const decoded = decodeJson(v);
    if (decoded !== null && typeof decoded === 'object') putValue(out, 'ag.data.inputs.tools.' + i, decoded);
    else put(out, 'ag.data.inputs.tools.' + i + '.tool.json_schema', v);
  }
}

const copies = (pairs: [string, string][]): Row[] =>
  pairs.map(([src, dst]): Row => ({ kind: 'copy', src, dst }));

const rows: Row[] = [
  { kind: 'type', src: 'openinference.span.kind', map: kindType },
  { kind: 'custom', dst: 'ag.data.inputs', sources: ['input.value'], note: "the raw value, unless a chat span's messages carry it", run: inputValue },
  { kind: 'custom', dst: 'ag.data.outputs', sources: ['output.value'], note: "the raw value, unless a chat span's messages carry it", run: outputValue },
  ...copies([
    ['input.mime_type', 'ag.meta.input.mime_type'],
    ['output.mime_type', 'ag.meta.output.mime_type'],
  ]),
  // Before `llm.model_name`: that is the model that answered (OpenAI instrumentations record the
  // response's dated name), and the invocation parameters' `model` is the one asked for.
  { kind: 'custom', dst: 'ag.meta.request', sources: ['llm.invocation_parameters'], note: 'members of the decoded object', run: invocationParameters },
  ...copies([
    ['llm.model_name', 'ag.meta.request.model'],
    ['llm.model_name', 'ag.meta.response.model'],
  ]),
  ...copies([['llm.provider', 'ag.meta.provider'], ['llm.system', 'ag.meta.system']]),
  { kind: 'prefix', src: 'llm.token_count', dst: 'ag.metrics.tokens.incremental' },
  { kind: 'prefix', src: 'llm.input_messages', dst: 'ag.data.inputs.prompt', path: messagePath },
  { kind: 'prefix', src: 'llm.output_messages', dst: 'ag.data.outputs.completion', path: messagePath },
  { kind: 'custom', dst: 'ag.meta.response.finish_reasons', sources: ['llm.finish_reason'], note: 'a one-element list', run: finishReason },
  { kind: 'custom', dst: 'ag.data.inputs.tools', sources: ['llm.tools.'], note: 'each `llm.tools.<i>.tool.json_schema` decoded to the tool', run: tools },
  ...copies([
    ['llm.function_call', 'ag.data.outputs.function_call'],
    ['llm.prompt_template.template', 'ag.meta.prompt_template.template'],
    ['llm.prompt_template.variables', 'ag.meta.prompt_template.variables'],
    ['llm.prompt_template.version', 'ag.meta.prompt_template.version'],
    ['embedding.model_name', 'ag.meta.request.model'],
  ]),
  { kind: 'prefix', src: 'embedding.embeddings', dst: 'ag.data.inputs.embeddings' },
  { kind: 'prefix', src: 'retrieval.documents', dst: 'ag.data.outputs.retrieval.documents' },
  { kind: 'prefix', src: 'reranker.input_documents', dst: 'ag.data.inputs.reranker.input_documents' },
  { kind: 'prefix', src: 'reranker.output_documents', dst: 'ag.data.outputs.reranker.output_documents' },
  ...copies([
    ['reranker.model_name', 'ag.meta.reranker.model_name'],
    ['reranker.query', 'ag.meta.reranker.query'],
    ['reranker.top_k', 'ag.meta.reranker.top_k'],
    ['tool.name', 'ag.meta.tool.name'],
    ['tool.description', 'ag.meta.tool.description'],
    ['tool.parameters', 'ag.meta.tool.parameters'],
    ['tool.json_schema', 'ag.meta.tool.json_schema'],
    ['tool.id', 'ag.meta.tool.id'],
    ['session.id', 'ag.session.id'],
    ['user.id', 'ag.user.id'],
    ['metadata', 'ag.meta.metadata'],
    ['tag.tags', 'ag.meta.tags'],
    ['exception.type', 'ag.exception.type'],
    ['exception.message', 'ag.exception.message'],
    ['exception.stacktrace', 'ag.exception.stacktrace'],
    ['exception.escaped', 'ag.exception.escaped'],
  ]),
];

export const openinference: Family = {
  name: 'openinference',
  triggers: [
    'openinference.', 'input.', 'output.', 'llm.', 'embedding.', 'retrieval.', 'reranker.', 'tool.', 'session.id',
    'user.id', 'metadata', 'tag.tags', 'exception.',
  ],
  rows,
};
