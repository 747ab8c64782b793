// Langfuse's OpenTelemetry attributes (its SDKs v3 and later, and anything exporting in Langfuse's shape):
// `langfuse.observation.*` for each observation (span, generation, ...) and `langfuse.trace.*` for the
// trace it belongs to. The lowest-precedence family: where a span also carries gen_ai, OpenInference or
// OpenLLMetry attributes, those win a target.
//
// Input, output, model parameters, usage and cost details arrive as JSON text. A generation's input is
// usually its message list and its output the reply: they land where gen_ai puts messages
// (`ag.data.inputs.prompt`, `ag.data.outputs.completion`), so a chat call looks the same from every SDK.
import type { Attributes } from '../../../model/span.ts';
import { isPlainObject } from '../keys.ts';
import { decodeJson, put, putValue, type Family, type Row } from './rows.ts';
import type { RowOutput } from './planned-output.ts';

/** Observation types -> span types (`generation` is an LLM call). */
const TYPES: Record<string, string> = {
  generation: 'chat', span: 'task', event: 'task', agent: 'agent', tool: 'tool', chain: 'chain',
  retriever: 'query', embedding: 'embedding', evaluator: 'task', guardrail: 'task',
};

function observationType(value: string): string | undefined {
  const t = value.toLowerCase();
  return Object.hasOwn(TYPES, t) ? TYPES[t] : undefined;
}

function isGeneration(attrs: Attributes): boolean {
  const t = attrs.get('langfuse.observation.type');
  return typeof t === 'string' && t.toLowerCase() === 'generation';
}

/** Observation input: an object's members are the inputs; a generation's list is its prompt messages;
 *  anything else is kept whole under `input`. */
function input(attrs: Attributes, out: RowOutput): void {
  const v = attrs.get('langfuse.observation.input');
  if (v === undefined) return;
  const decoded = decodeJson(v);
  if (isPlainObject(decoded)) putValue(out, 'ag.data.inputs', decoded);
  else if (Array.isArray(decoded) && isGeneration(attrs)) putValue(out, 'ag.data.inputs.prompt', decoded);
  else putValue(out, 'ag.data.inputs.input', decoded);
}

/** Observation output: a generation's reply message (or list of them) is its completion; anything else
 *  is the output as it is. */
function output(attrs: Attributes, out: RowOutput): void {
  const v = attrs.get('langfuse.observation.output');
  if (v === undefined) return;
  const decoded = decodeJson(v);
  const generation = isGeneration(attrs);
  if (generation && isPlainObject(decoded) && 'role' in decoded) putValue(out, 'ag.data.outputs.completion.0', decoded);
  else if (generation && Array.isArray(decoded)) putValue(out, 'ag.data.outputs.completion', decoded);
  else putValue(out, 'ag.data.outputs', decoded);
}

/** Langfuse usage and cost keys -> the ag.metrics names gen_ai uses; other keys keep their names. The
 *  SDK's OpenAI drop-in (langfuse.openai) passes OpenAI's usage names through: they are the same counts. */
const METRIC_NAMES: Record<string, string> = {
  input: 'prompt', output: 'completion', total: 'total',
  prompt_tokens: 'prompt', completion_tokens: 'completion', total_tokens: 'total', input_tokens: 'prompt', output_tokens: 'completion',
};

/** usage_details / cost_details: a JSON object of numbers, each member a token count or a cost. */
function metricDetails(attrs: Attributes, out: RowOutput, src: string, dst: string): void {
  const v = attrs.get(src);
  if (v === undefined) return;
  const decoded = decodeJson(v);
  if (!isPlainObject(decoded)) return;
  for (const [key, n] of Object.entries(decoded)) {
    if (typeof n !== 'number' || !Number.isFinite(n)) continue;
    put(out, `${dst}.${Object.hasOwn(METRIC_NAMES, key) ? METRIC_NAMES[key] : key}`, n);
  }
}

function usage(attrs: Attributes, out: RowOutput): void {
  metricDetails(attrs, out, 'langfuse.observation.usage_details', 'ag.metrics.tokens.incremental');
}

function costs(attrs: Attributes, out: RowOutput): void {
  metricDetails(attrs, out, 'langfuse.observation.cost_details', 'ag.metrics.costs.incremental');
}

/** Model parameters are members of ag.meta.request, as gen_ai's request parameters are. */
function modelParameters(attrs: Attributes, out: RowOutput): void {
  const v = attrs.get('langfuse.observation.model.parameters');
  if (v === undefined) return;
  const decoded = decodeJson(v);
  if (isPlainObject(decoded)) putValue(out, 'ag.meta.request', decoded);
}

const rows: Row[] = [
  { kind: 'type', src: 'langfuse.observation.type', map: observationType },
  { kind: 'custom', dst: 'ag.data.inputs', sources: ['langfuse.observation.input'], note: "an object: its members; a generation's list: `ag.data.inputs.prompt`; else `ag.data.inputs.input`", run: input },
  { kind: 'custom', dst: 'ag.data.outputs', sources: ['langfuse.observation.output'], note: "a generation's reply: `ag.data.outputs.completion`; else the decoded value", run: output },
  { kind: 'copy', src: 'langfuse.observation.model.name', dst: 'ag.meta.request.model' },
  // One model name, as OpenInference's: it fills both model slots (namespace README, "Model slots").
  { kind: 'copy', src: 'langfuse.observation.model.name', dst: 'ag.meta.response.model' },
  { kind: 'custom', dst: 'ag.meta.request', sources: ['langfuse.observation.model.parameters'], note: 'members of the decoded object', run: modelParameters },
  { kind: 'custom', dst: 'ag.metrics.tokens.incremental', sources: ['langfuse.observation.usage_details'], note: '`input` / `prompt_tokens` / `input_tokens` -> `prompt`, `output` / `completion_tokens` / `output_tokens` -> `completion`, `total` / `total_tokens` -> `total`; other keys as they are', run: usage },
  { kind: 'custom', dst: 'ag.metrics.costs.incremental', sources: ['langfuse.observation.cost_details'], note: 'as the usage details', run: costs },
  { kind: 'json', src: 'langfuse.observation.metadata', dst: 'ag.meta.metadata' },
  { kind: 'prefix', src: 'langfuse.observation.metadata', dst: 'ag.meta.metadata' },
  { kind: 'copy', src: 'langfuse.observation.level', dst: 'ag.meta.level' },
  { kind: 'copy', src: 'langfuse.observation.status_message', dst: 'ag.meta.status_message' },
  { kind: 'copy', src: 'langfuse.observation.completion_start_time', dst: 'ag.meta.completion_start_time' },
  { kind: 'copy', src: 'langfuse.observation.prompt.name', dst: 'ag.meta.prompt.name' },
  { kind: 'copy', src: 'langfuse.observation.prompt.version', dst: 'ag.meta.prompt.version' },
  { kind: 'copy', src: 'langfuse.trace.name', dst: 'ag.meta.trace.name' },
  { kind: 'copy', src: 'langfuse.trace.tags', dst: 'ag.meta.tags' },
  { kind: 'json', src: 'langfuse.trace.input', dst: 'ag.meta.trace.input' },
  { kind: 'json', src: 'langfuse.trace.output', dst: 'ag.meta.trace.output' },
  { kind: 'json', src: 'langfuse.trace.metadata', dst: 'ag.meta.trace.metadata' },
  { kind: 'prefix', src: 'langfuse.trace.metadata', dst: 'ag.meta.trace.metadata' },
  { kind: 'copy', src: 'langfuse.user.id', dst: 'ag.user.id' },
  { kind: 'copy', src: 'langfuse.session.id', dst: 'ag.session.id' },
  { kind: 'copy', src: 'langfuse.environment', dst: 'ag.meta.environment' },
  { kind: 'copy', src: 'langfuse.release', dst: 'ag.meta.release' },
  { kind: 'copy', src: 'langfuse.version', dst: 'ag.meta.version' },
];

export const langfuse: Family = {
  name: 'langfuse',
  // `user.id` and `session.id`, which Langfuse's SDKs also write, are OpenInference's rows already.
  triggers: ['langfuse.'],
  rows,
};
