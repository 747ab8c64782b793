// OpenLLMetry / Traceloop (ag-namespace.md §6.2), the lowest-precedence family.
import type { Attributes } from '../../../model/span.ts';
import { isPlainObject } from '../keys.ts';
import { decodeJson, lowerType, putValue, type Family, type Row } from './rows.ts';
import type { RowOutput } from './planned-output.ts';

/**
 * Row 3: what traceloop's decorators record as the entity input. An object with an `inputs` member (what
 * Agenta-style code sends): that member. Otherwise the call's arguments as the Python SDK writes them,
 * `{"args": [...], "kwargs": {...}}`: the keyword arguments are the named inputs, the positional ones
 * `args`. Anything else maps nothing.
 */
function entityInput(attrs: Attributes, out: RowOutput): void {
  const v = attrs.get('traceloop.entity.input');
  if (v === undefined) return;
  const decoded = decodeJson(v);
  if (!isPlainObject(decoded)) return;
  if ('inputs' in decoded) {
    const m = decoded.inputs;
    if (typeof m === 'string' || isPlainObject(m)) putValue(out, 'ag.data.inputs', m);
    return;
  }
  const { args, kwargs } = decoded;
  if (!Array.isArray(args) && !isPlainObject(kwargs)) return;
  if (isPlainObject(kwargs)) for (const [name, value] of Object.entries(kwargs)) if (name !== 'args') putValue(out, `ag.data.inputs.${name}`, value);
  if (Array.isArray(args) && args.length > 0) putValue(out, 'ag.data.inputs.args', args);
}

/** Row 4: the entity output's `outputs` member when it has one (as row 3), else the decoded return value. */
function entityOutput(attrs: Attributes, out: RowOutput): void {
  const v = attrs.get('traceloop.entity.output');
  if (v === undefined) return;
  const decoded = decodeJson(v);
  if (isPlainObject(decoded) && 'outputs' in decoded) {
    const m = decoded.outputs;
    if (typeof m === 'string' || isPlainObject(m)) putValue(out, 'ag.data.outputs', m);
    return;
  }
  if (decoded !== null) putValue(out, 'ag.data.outputs', decoded);
}

const rows: Row[] = [
  { kind: 'type', src: 'traceloop.span.kind', map: lowerType },
  { kind: 'type', src: 'llm.request.type', map: lowerType },
  { kind: 'custom', dst: 'ag.data.inputs', sources: ['traceloop.entity.input'], note: 'member `inputs`; else `kwargs` as named inputs and `args`', run: entityInput },
  { kind: 'custom', dst: 'ag.data.outputs', sources: ['traceloop.entity.output'], note: 'member `outputs`; else the decoded return value', run: entityOutput },
  { kind: 'copy', src: 'traceloop.entity.name', dst: 'ag.meta.entity.name' },
  { kind: 'copy', src: 'traceloop.entity.path', dst: 'ag.meta.entity.path' },
  { kind: 'copy', src: 'traceloop.workflow.name', dst: 'ag.meta.workflow.name' },
  { kind: 'prefix', src: 'gen_ai.prompt', dst: 'ag.data.inputs.prompt' },
  { kind: 'prefix', src: 'gen_ai.completion', dst: 'ag.data.outputs.completion' },
  { kind: 'prefix', src: 'llm.request.functions', dst: 'ag.data.inputs.functions' },
  { kind: 'prefix', src: 'llm.request.tools', dst: 'ag.data.inputs.tools' },
  { kind: 'copy', src: 'llm.usage.total_tokens', dst: 'ag.metrics.tokens.incremental.total' },
  { kind: 'copy', src: 'llm.top_k', dst: 'ag.meta.request.top_k' },
  { kind: 'copy', src: 'llm.is_streaming', dst: 'ag.meta.request.streaming' },
  { kind: 'copy', src: 'llm.headers', dst: 'ag.meta.request.headers' },
  { kind: 'copy', src: 'gen_ai.openai.api_base', dst: 'ag.meta.request.base_url' },
  { kind: 'copy', src: 'db.system', dst: 'ag.meta.system' },
  { kind: 'copy', src: 'db.vector.query.top_k', dst: 'ag.meta.request.top_k' },
  { kind: 'copy', src: 'pinecone.query.top_k', dst: 'ag.meta.request.top_k' },
];

export const openllmetry: Family = {
  name: 'openllmetry',
  triggers: ['traceloop.', 'llm.', 'gen_ai.prompt.', 'gen_ai.completion.', 'gen_ai.openai.api_base', 'db.', 'pinecone.'],
  rows,
};
