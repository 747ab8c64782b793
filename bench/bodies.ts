// Request bodies for the benchmark: 100 spans per request, 10 attributes and one event per span, realistic
// ag.* and gen_ai attributes. Built once, before anything is measured.
import { ExportRequestEncoder } from '../codec/otlp/index.ts';
import { AttributeList } from '../model/attributes/list.ts';
import type { Attributes, Span, SpanScope } from '../model/span.ts';

const BASE_NS = 1776363498000000000n;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

function apiAttributes(i: number): Record<string, unknown> {
  return {
    'ag.type.span': i % 3 === 0 ? 'chat' : 'tool',
    'ag.data.inputs.prompt.0.role': 'user',
    'ag.data.inputs.prompt.0.content': `What is the weather in city number ${i}?`,
    'ag.data.outputs.completion.0.content': 'Sunny, 21 degrees, light wind from the west.',
    'ag.metrics.tokens.incremental.prompt': 42 + (i % 7),
    'ag.metrics.tokens.incremental.completion': 17,
    'ag.session.id': `session-${i % 10}`,
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.operation.name': 'chat',
    'gen_ai.usage.input_tokens': 42 + (i % 7),
  };
}

/** Span `i` of request `request`: one trace per request, span 0 its root and every other span its child. */
function spanIds(request: number, i: number): { traceId: string; spanId: string; parentId: string | undefined } {
  return {
    traceId: hex(request + 1, 16) + hex(0xabcdef, 16),
    spanId: hex(request * 1000 + i + 1, 16),
    parentId: i > 0 ? hex(request * 1000 + 1, 16) : undefined,
  };
}

function startOf(i: number): bigint {
  return BASE_NS + BigInt(i) * 1_000_000n;
}

function apiSpan(request: number, i: number) {
  const start = startOf(i);
  const { traceId, spanId, parentId } = spanIds(request, i);
  return {
    trace_id: traceId,
    span_id: spanId,
    ...(parentId !== undefined ? { parent_id: parentId } : {}),
    span_name: i % 3 === 0 ? 'chat gpt-4o-mini' : `tool-${i}`,
    span_kind: 'SPAN_KIND_CLIENT',
    start_time: start.toString(),
    end_time: (start + 250_000_000n).toString(),
    status_code: 'STATUS_CODE_OK',
    attributes: apiAttributes(i),
    events: [{ name: 'gen_ai.choice', timestamp: (start + 200_000_000n).toString(), attributes: { index: 0 } }],
  };
}

/** `{"spans": [...]}` for /tracing/spans/ingest. */
export function flatBody(request: number, spans = 100): Buffer {
  return Buffer.from(JSON.stringify({ spans: Array.from({ length: spans }, (_, i) => apiSpan(request, i)) }));
}

/** The same spans as a tree: one root, ten children, each with nine grandchildren (100 nodes). */
export function nestedBody(request: number): Buffer {
  const node = (i: number) => {
    const { trace_id: _t, parent_id: _p, span_name: _n, ...rest } = apiSpan(request, i);
    return rest;
  };
  const children: Record<string, unknown> = {};
  let i = 1;
  for (let c = 0; c < 10 && i < 100; c++) {
    const child: Record<string, unknown> = node(i++);
    const grand: Record<string, unknown> = {};
    for (let g = 0; g < 9 && i < 100; g++) grand[`tool-${i}`] = node(i++);
    child.spans = grand;
    children[`step-${c}`] = child;
  }
  const root = { ...node(0), spans: children };
  const traceId = hex(request + 1, 16) + hex(0xabcdef, 16);
  return Buffer.from(JSON.stringify({ traces: { [traceId]: { spans: { agent: root } } } }));
}

/** A client span as OTLP carries it: what varies is the name, the attributes, the duration (the
 *  choice event 50 ms before the end) and the service and instrumentation that sent it. */
function otlpSpan(request: number, i: number, name: string, attributes: Attributes, durationNs: bigint, service: string, scope: SpanScope): Span {
  const start = startOf(i);
  return {
    ...spanIds(request, i),
    name,
    kind: 3,
    startNs: start,
    endNs: start + durationNs,
    status: { code: 1 },
    attributes,
    events: [{ name: 'gen_ai.choice', timeNs: start + durationNs - 50_000_000n, attributes: new AttributeList([['index', 0]]) }],
    resource: new AttributeList([['service.name', service], ['service.version', '1.0.0']]),
    scope,
  };
}

/** An OTLP ExportTraceServiceRequest in protobuf of `spans` spans made by `span`. */
function otlpBody(request: number, spans: number, span: (request: number, i: number) => Span): Buffer {
  return Buffer.from(new ExportRequestEncoder().encode(Array.from({ length: spans }, (_, i) => span(request, i))));
}

function canonicalSpan(request: number, i: number): Span {
  const api = apiSpan(request, i);
  const attributes: Attributes = new AttributeList(Object.entries(api.attributes) as Array<[string, string | number]>);
  return otlpSpan(request, i, api.span_name, attributes, 250_000_000n, 'bench-app', { name: 'bench-instrumentation', version: '0.1.0' });
}

/** An OTLP ExportTraceServiceRequest in protobuf: the flat body's spans. */
export function otlpProtoBody(request: number, spans = 100): Buffer {
  return otlpBody(request, spans, canonicalSpan);
}

// ---- LLM calls as instrumentations send them ------------------------------------------------------
// The spans above are small (~570 bytes each in OTLP). An LLM call traced by OpenLLMetry-style
// instrumentation carries its conversation: here ~45 attributes, 8 prompt and 2 completion messages of
// a few hundred characters, token counts and request parameters, ~4.4 KB per span. The messages are
// lines of text with quotes here and there, as prompts and answers are: every one needs JSON escapes.

const LOREM = 'The quick brown fox jumps over the lazy dog while the model considers the question.\n';
/** LOREM with accents, a dash and CJK (two- and three-byte UTF-8), as texts in other languages have. */
const LOREM_NON_ASCII = 'The quick brown fox jumps over the paresseux chien — naïve café 模型 while the model considers the question.\n';

function llmSpan(request: number, i: number, lorem = LOREM): Span {
  const attributes: Attributes = new AttributeList([
    ['gen_ai.system', 'openai'], ['gen_ai.operation.name', 'chat'], ['gen_ai.request.model', 'gpt-4o'],
    ['gen_ai.response.model', 'gpt-4o-2024-08-06'], ['gen_ai.request.temperature', 0.2], ['gen_ai.request.max_tokens', 1024],
    ['gen_ai.usage.input_tokens', 900 + (i % 50)], ['gen_ai.usage.output_tokens', 120 + (i % 30)],
    ['gen_ai.response.id', `chatcmpl-${hex(request * 1000 + i, 12)}`], ['session.id', `session-${i % 10}`], ['user.id', `user-${i % 4}`],
  ]);
  for (let m = 0; m < 8; m++) {
    attributes.set(`gen_ai.prompt.${m}.role`, m === 0 ? 'system' : m % 2 ? 'user' : 'assistant');
    attributes.set(`gen_ai.prompt.${m}.content`, `Turn ${m} of conversation ${i}:\n${lorem.repeat(3 + (m % 3))}`);
  }
  for (let m = 0; m < 2; m++) {
    attributes.set(`gen_ai.completion.${m}.role`, 'assistant');
    attributes.set(`gen_ai.completion.${m}.finish_reason`, 'stop');
    attributes.set(`gen_ai.completion.${m}.content`, `Answer ${i}.${m}, on the "question":\n${lorem.repeat(4)}`);
  }
  for (let k = 0; k < 10; k++) attributes.set(`app.request.field_${k}`, k % 2 ? `value-${k}-${i % 5}` : k * 10);
  return otlpSpan(request, i, 'chat gpt-4o', attributes, 900_000_000n, 'bench-llm-app',
    { name: 'opentelemetry.instrumentation.openai', version: '0.40.0' });
}

/** An OTLP ExportTraceServiceRequest in protobuf of LLM-call spans (~4.4 KB each). */
export function otlpLlmProtoBody(request: number, spans = 100): Buffer {
  return otlpBody(request, spans, llmSpan);
}

/** otlpLlmProtoBody with non-ASCII texts (bench/daemon-ab.ts; not a bench scenario). */
export function otlpLlmNonAsciiProtoBody(request: number, spans = 100): Buffer {
  return otlpBody(request, spans, (r, i) => llmSpan(r, i, LOREM_NON_ASCII));
}
