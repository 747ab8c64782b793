// OpenLLMetry / Traceloop (ag-namespace.md §6.2), the lowest-precedence family.
import type { Attributes } from '../../../model/span.ts';
import { isPlainObject } from '../keys.ts';
import { decodeJson, lowerType, putValue, type Family, type Row } from './rows.ts';
import type { RowOutput } from './planned-output.ts';

/** Rows 3/4: the member `inputs` / `outputs` of the entity JSON (a string or an object), else nothing. */
function entityMember(attrs: Attributes, out: RowOutput, src: string, member: string, dst: string): void {
  const v = attrs.get(src);
  if (v === undefined) return;
  const decoded = decodeJson(v);
  if (!isPlainObject(decoded)) return;
  const m = decoded[member];
  if (typeof m === 'string' || isPlainObject(m)) putValue(out, dst, m);
}

function entityInput(attrs: Attributes, out: RowOutput): void {
  entityMember(attrs, out, 'traceloop.entity.input', 'inputs', 'ag.data.inputs');
}

function entityOutput(attrs: Attributes, out: RowOutput): void {
  entityMember(attrs, out, 'traceloop.entity.output', 'outputs', 'ag.data.outputs');
}

const rows: Row[] = [
  { kind: 'type', src: 'traceloop.span.kind', map: lowerType },
  { kind: 'type', src: 'llm.request.type', map: lowerType },
  { kind: 'custom', dst: 'ag.data.inputs', sources: ['traceloop.entity.input'], run: entityInput },
  { kind: 'custom', dst: 'ag.data.outputs', sources: ['traceloop.entity.output'], run: entityOutput },
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
