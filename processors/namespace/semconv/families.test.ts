// Each semantic-convention family on realistic attribute sets (ag-namespace.md §6), row by row, and the
// cross-family precedence rules of §6.1.
import { describe, expect, it } from 'vitest';
import { AttributeList } from '../../../model/attributes/list.ts';
import type { AttrValue, Attributes } from '../../../model/span.ts';
import { KeySpace } from '../keys.ts';
import { Quarantine } from '../quarantine.ts';
import { genai } from './genai.ts';
import { langfuse } from './langfuse.ts';
import { FamilyMapper, applySemconv, familyMask } from './index.ts';
import { messagePath, openinference } from './openinference.ts';
import { openllmetry } from './openllmetry.ts';
import { indexFamily, planFamily, runPlannedFamily, type Family } from './rows.ts';
import { vercel } from './vercel.ts';

const attrs = (o: Record<string, AttrValue>): Attributes => new AttributeList(Object.entries(o));
/** One family alone over `o`, nothing claimed. */
function runFamily(f: Family, o: Record<string, AttrValue>): Attributes {
  const list = attrs(o);
  const out: Attributes = new AttributeList();
  runPlannedFamily(planFamily(indexFamily(f), list.keyArray, new KeySpace()), list, undefined, out);
  return out;
}
const map = (f: Family, o: Record<string, AttrValue>) => Object.fromEntries(runFamily(f, o));
const mapList = (f: Family, o: Record<string, AttrValue>) => [...runFamily(f, o)];

describe('gen_ai (§6.4)', () => {
  it('maps an OpenAI chat span from opentelemetry-instrumentation-openai-v2', () => {
    expect(mapList(genai, {
      'gen_ai.operation.name': 'chat', 'gen_ai.system': 'openai', 'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.request.temperature': 0.2, 'gen_ai.request.max_tokens': 256, 'gen_ai.request.stop_sequences': ['\n'],
      'gen_ai.response.model': 'gpt-4o-mini-2024-07-18', 'gen_ai.response.id': 'chatcmpl-1',
      'gen_ai.response.finish_reasons': ['stop'], 'gen_ai.usage.input_tokens': 12, 'gen_ai.usage.output_tokens': 7,
      'gen_ai.usage.cache_read.input_tokens': 4, 'server.address': 'api.openai.com',
      'gen_ai.output.messages': '[{"role":"assistant","parts":[{"type":"text","content":"hi"}]}]',
    })).toEqual([
      ['ag.type.span', 'chat'],
      ['ag.meta.request.model', 'gpt-4o-mini'],
      ['ag.meta.response.model', 'gpt-4o-mini-2024-07-18'],
      ['ag.meta.request.max_tokens', 256],
      ['ag.meta.request.temperature', 0.2],
      ['ag.meta.request.stop_sequences', ['\n']],
      ['ag.meta.response.finish_reasons', ['stop']],
      ['ag.meta.response.id', 'chatcmpl-1'],
      ['ag.meta.system', 'openai'],
      ['ag.metrics.tokens.incremental.prompt', 12],
      ['ag.metrics.tokens.incremental.completion', 7],
      ['ag.metrics.tokens.incremental.total', 19],
      ['ag.metrics.tokens.incremental.cache_read', 4],
      ['ag.data.outputs.completion.0.role', 'assistant'],
      ['ag.data.outputs.completion.0.content', 'hi'],
    ]);
  });

  it('operation names map to types; other strings are tasks; request.type only when valid', () => {
    const type = (op: AttrValue) => map(genai, { 'gen_ai.operation.name': op })['ag.type.span'];
    expect(['chat', 'text_completion', 'generate_content', 'embeddings', 'execute_tool', 'invoke_agent',
      'create_agent', 'retrieve'].map(type)).toEqual(
      ['chat', 'completion', 'completion', 'embedding', 'tool', 'agent', 'agent', 'task']);
    expect(type(3)).toBeUndefined();
    expect(map(genai, { 'gen_ai.request.type': 'Rerank' })['ag.type.span']).toBe('rerank');
    expect(map(genai, { 'gen_ai.request.type': 'banana' })).toEqual({});
  });

  it('first source wins for tokens; a client total is kept; a non-number blocks the sum', () => {
    expect(map(genai, {
      'gen_ai.usage.prompt_tokens': 1, 'gen_ai.usage.input_tokens': 2, 'gen_ai.usage.completion_tokens': 3,
      'gen_ai.usage.total_tokens': 99,
    })).toEqual({
      'ag.metrics.tokens.incremental.prompt': 2, 'ag.metrics.tokens.incremental.completion': 3,
      'ag.metrics.tokens.incremental.total': 99,
    });
    expect(map(genai, { 'gen_ai.usage.input_tokens': '2', 'gen_ai.usage.output_tokens': 3 })).toEqual({
      'ag.metrics.tokens.incremental.prompt': '2', 'ag.metrics.tokens.incremental.completion': 3,
    });
  });

  it('tool, conversation, provider, system instructions; bad JSON messages stay raw', () => {
    expect(map(genai, {
      'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.call.arguments': '{"q":"x"}', 'gen_ai.tool.call.result': 'ok', 'gen_ai.conversation.id': 'conv-9',
      'gen_ai.provider.name': 'openai', 'gen_ai.output.type': 'json', 'gen_ai.system_instructions': 'be brief',
      'gen_ai.input.messages': 'not json',
    })).toEqual({
      'ag.type.span': 'tool', 'ag.meta.provider.name': 'openai', 'ag.meta.output.type': 'json',
      'ag.session.id': 'conv-9', 'ag.data.inputs.prompt': 'not json', 'ag.meta.system_instructions': 'be brief',
      'ag.meta.tool.name': 'search', 'ag.meta.tool.call.id': 'call_1', 'ag.meta.tool.call.arguments': '{"q":"x"}',
      'ag.meta.tool.call.result': 'ok',
    });
  });
});

describe('OpenInference (§6.3)', () => {
  it('maps a LangChain retriever span', () => {
    expect(mapList(openinference, {
      'openinference.span.kind': 'RETRIEVER', 'input.value': 'what is x?', 'input.mime_type': 'text/plain',
      'retrieval.documents.0.document.content': 'x is y', 'retrieval.documents.0.document.score': 0.9,
      'metadata': '{"ls_run_depth":1}', 'session.id': 'sess', 'user.id': 'u1',
    })).toEqual([
      ['ag.type.span', 'query'],
      ['ag.data.inputs', 'what is x?'],
      ['ag.meta.input.mime_type', 'text/plain'],
      ['ag.data.outputs.retrieval.documents.0.document.content', 'x is y'],
      ['ag.data.outputs.retrieval.documents.0.document.score', 0.9],
      ['ag.session.id', 'sess'],
      ['ag.user.id', 'u1'],
      ['ag.meta.metadata', '{"ls_run_depth":1}'],
    ]);
  });

  it('maps an LLM span with tool calls, tools, invocation parameters, template and exception', () => {
    expect(map(openinference, {
      'openinference.span.kind': 'llm', 'llm.provider': 'openai', 'llm.system': 'openai',
      'llm.invocation_parameters': '{"temperature":0.1,"model":"gpt-4o"}', 'llm.model_name': 'gpt-4o',
      'llm.input_messages.0.message.role': 'user', 'input.value': '{"messages":[]}',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'lookup',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"id":1}',
      'llm.tools.0.tool.json_schema': '{"type":"function","function":{"name":"lookup"}}',
      'llm.tools.1.tool.json_schema': 'broken',
      'llm.prompt_template.template': 'Hi {name}', 'llm.prompt_template.variables': '{"name":"x"}',
      'llm.function_call': '{"name":"f"}', 'tag.tags': ['a'], 'exception.type': 'ValueError',
      'exception.message': 'bad', 'llm.token_count.total': 9,
    })).toEqual({
      'ag.type.span': 'chat',
      'ag.data.outputs.completion.0.tool_calls.0.function.name': 'lookup',
      'ag.data.outputs.completion.0.tool_calls.0.function.arguments': '{"id":1}',
      'ag.meta.request.model': 'gpt-4o', 'ag.meta.response.model': 'gpt-4o', 'ag.meta.request.temperature': 0.1,
      'ag.meta.provider': 'openai', 'ag.meta.system': 'openai', 'ag.metrics.tokens.incremental.total': 9,
      'ag.data.inputs.prompt.0.role': 'user',
      'ag.data.inputs.tools.0.type': 'function', 'ag.data.inputs.tools.0.function.name': 'lookup',
      'ag.data.inputs.tools.1.tool.json_schema': 'broken',
      'ag.data.outputs.function_call': '{"name":"f"}', 'ag.meta.prompt_template.template': 'Hi {name}',
      'ag.meta.prompt_template.variables': '{"name":"x"}', 'ag.meta.tags': ['a'], 'ag.exception.type': 'ValueError',
      'ag.exception.message': 'bad',
    });
  });

  it('input.value is kept for a chat span without message lists, and for other kinds', () => {
    expect(map(openinference, { 'openinference.span.kind': 'LLM', 'input.value': 'q' })['ag.data.inputs']).toBe('q');
    expect(map(openinference, { 'openinference.span.kind': 'CHAIN', 'input.value': 'q', 'llm.input_messages.0.message.role': 'user' })['ag.data.inputs']).toBe('q');
    expect(map(openinference, { 'openinference.span.kind': 'unknown_kind' })).toEqual({});
  });

  it('embedding, reranker and tool spans', () => {
    expect(map(openinference, {
      'openinference.span.kind': 'EMBEDDING', 'embedding.model_name': 'text-embedding-3-small',
      'embedding.embeddings.0.embedding.text': 'hello',
    })).toEqual({
      'ag.type.span': 'embedding', 'ag.meta.request.model': 'text-embedding-3-small',
      'ag.data.inputs.embeddings.0.embedding.text': 'hello',
    });
    expect(map(openinference, {
      'openinference.span.kind': 'RERANKER', 'reranker.model_name': 'rr', 'reranker.query': 'q', 'reranker.top_k': 2,
      'reranker.input_documents.0.document.id': 'a', 'reranker.output_documents.0.document.id': 'a',
    })).toEqual({
      'ag.type.span': 'rerank', 'ag.data.inputs.reranker.input_documents.0.document.id': 'a',
      'ag.data.outputs.reranker.output_documents.0.document.id': 'a', 'ag.meta.reranker.model_name': 'rr',
      'ag.meta.reranker.query': 'q', 'ag.meta.reranker.top_k': 2,
    });
    expect(map(openinference, {
      'openinference.span.kind': 'TOOL', 'tool.name': 'calc', 'tool.description': 'adds', 'tool.parameters': '{}',
      'tool.id': 't1', 'tool.json_schema': '{}', 'exception.stacktrace': 'st', 'exception.escaped': false,
    })).toEqual({
      'ag.type.span': 'tool', 'ag.meta.tool.name': 'calc', 'ag.meta.tool.description': 'adds',
      'ag.meta.tool.parameters': '{}', 'ag.meta.tool.json_schema': '{}', 'ag.meta.tool.id': 't1',
      'ag.exception.stacktrace': 'st', 'ag.exception.escaped': false,
    });
  });

  it('rewrites message paths', () => {
    expect(messagePath('0.message.role')).toBe('0.role');
    expect(messagePath('1.message.tool_calls.2.tool_call.id')).toBe('1.tool_calls.2.id');
    expect(messagePath('1.message.contents.0.message_content.text')).toBe('1.contents.0.message_content.text');
    expect(messagePath('extra')).toBe('extra');
    expect(messagePath('0.other')).toBe('0.other');
  });
});

describe('OpenLLMetry / Traceloop (§6.2)', () => {
  it('maps a Traceloop workflow span and an OpenAI chat span', () => {
    expect(map(openllmetry, {
      'traceloop.span.kind': 'Workflow', 'traceloop.entity.name': 'joke',
      'traceloop.entity.input': '{"inputs":{"topic":"cats"},"tags":[]}',
      'traceloop.entity.output': '{"outputs":"a joke"}',
    })).toEqual({
      'ag.type.span': 'workflow', 'ag.data.inputs.topic': 'cats', 'ag.data.outputs': 'a joke', 'ag.meta.entity.name': 'joke',
    });
    expect(mapList(openllmetry, {
      'llm.request.type': 'chat', 'gen_ai.system': 'OpenAI', 'gen_ai.request.model': 'gpt-4o',
      'gen_ai.prompt.0.role': 'user', 'gen_ai.prompt.0.content': 'hi', 'gen_ai.completion.0.role': 'assistant',
      'gen_ai.completion.0.content': 'yo', 'llm.usage.total_tokens': 12, 'llm.is_streaming': false,
      'llm.headers': 'None', 'gen_ai.openai.api_base': 'https://api.openai.com/v1/',
      'llm.request.functions.0.name': 'f',
    })).toEqual([
      ['ag.type.span', 'chat'],
      ['ag.data.inputs.prompt.0.role', 'user'],
      ['ag.data.inputs.prompt.0.content', 'hi'],
      ['ag.data.outputs.completion.0.role', 'assistant'],
      ['ag.data.outputs.completion.0.content', 'yo'],
      ['ag.data.inputs.functions.0.name', 'f'],
      ['ag.metrics.tokens.incremental.total', 12],
      ['ag.meta.request.streaming', false],
      ['ag.meta.request.headers', 'None'],
      ['ag.meta.request.base_url', 'https://api.openai.com/v1/'],
    ]);
  });

  it('decorated functions: keyword arguments are the named inputs, positional ones `args`; the return value is the output', () => {
    // What traceloop-sdk's @workflow / @task / @tool decorators record (json.dumps of the call and its result).
    expect(map(openllmetry, {
      'traceloop.span.kind': 'tool', 'traceloop.entity.name': 'get_weather', 'traceloop.entity.path': 'plan.get_weather',
      'traceloop.workflow.name': 'trip', 'traceloop.entity.input': '{"args": ["Paris"], "kwargs": {"units": "metric", "days": 2}}',
      'traceloop.entity.output': '"Sunny, 22C"',
    })).toEqual({
      'ag.type.span': 'tool', 'ag.data.inputs.units': 'metric', 'ag.data.inputs.days': 2, 'ag.data.inputs.args': ['Paris'],
      'ag.data.outputs': 'Sunny, 22C', 'ag.meta.entity.name': 'get_weather', 'ag.meta.entity.path': 'plan.get_weather',
      'ag.meta.workflow.name': 'trip',
    });
    expect(map(openllmetry, { 'traceloop.entity.input': '{"args": [{"city": "Rome"}], "kwargs": {}}', 'traceloop.entity.output': '{"temp": 22, "sky": "clear"}' })).toEqual({
      'ag.data.inputs.args.0.city': 'Rome', 'ag.data.outputs.temp': 22, 'ag.data.outputs.sky': 'clear',
    });
  });

  it('vector DB spans; entity input without inputs, args or kwargs gives nothing; first top_k wins', () => {
    expect(map(openllmetry, {
      'traceloop.span.kind': 'task', 'db.system': 'pinecone', 'pinecone.query.top_k': 3, 'db.vector.query.top_k': 5,
      'traceloop.entity.input': '{"args":[]}', 'traceloop.entity.output': 'null', 'llm.top_k': 7,
    })).toEqual({ 'ag.type.span': 'task', 'ag.meta.request.top_k': 7, 'ag.meta.system': 'pinecone' });
    expect(map(openllmetry, { 'traceloop.span.kind': 'robot' })).toEqual({});
  });
});

describe('Vercel AI SDK (§6.5)', () => {
  it('maps a generateText doGenerate span', () => {
    expect(mapList(vercel, {
      'ai.operationId': 'ai.generateText.doGenerate', 'ai.model.id': 'gpt-4o', 'ai.model.provider': 'openai.chat',
      'ai.settings.maxRetries': 2, 'ai.settings.temperature': 0.3, 'ai.settings.maxOutputTokens': 100,
      'ai.prompt.messages': '[{"role":"user","content":[{"type":"text","text":"hi"}]}]',
      'ai.response.text': 'hello', 'ai.response.finishReason': 'stop', 'ai.response.id': 'r1',
      'ai.response.model': 'gpt-4o-2024', 'ai.response.timestamp': '2026-04-16T18:18:18Z',
      'ai.usage.promptTokens': 5, 'ai.usage.completionTokens': 2, 'ai.telemetry.metadata.userId': 'u',
      'ai.telemetry.metadata.sessionId': 's',
    })).toEqual([
      ['ag.type.span', 'chat'],
      ['ag.meta.request.model', 'gpt-4o'],
      ['ag.meta.system', 'openai.chat'],
      ['ag.meta.response.model', 'gpt-4o-2024'],
      ['ag.meta.response.id', 'r1'],
      ['ag.meta.response.timestamp', '2026-04-16T18:18:18Z'],
      ['ag.meta.request.temperature', 0.3],
      ['ag.meta.request.max_tokens', 100],
      ['ag.meta.request.max_retries', 2],
      ['ag.metrics.tokens.incremental.prompt', 5],
      ['ag.metrics.tokens.incremental.completion', 2],
      ['ag.data.inputs.prompt.0.role', 'user'],
      ['ag.data.inputs.prompt.0.content', 'hi'],
      ['ag.data.outputs.completion.0.role', 'assistant'],
      ['ag.data.outputs.completion.0.content', 'hello'],
      ['ag.meta.response.finish_reasons', ['stop']],
      ['ag.user.id', 'u'],
      ['ag.session.id', 's'],
    ]);
  });

  it('embeddings, tool calls beside text, v5 usage names, structured output', () => {
    expect(map(vercel, { 'ai.operationId': 'ai.embedMany', 'ai.usage.inputTokens': 4, 'ai.usage.outputTokens': 1,
      'ai.usage.totalTokens': 5, 'ai.usage.reasoningTokens': 0, 'ai.usage.cachedInputTokens': 2 })).toEqual({
      'ag.type.span': 'embedding', 'ag.metrics.tokens.incremental.prompt': 4,
      'ag.metrics.tokens.incremental.completion': 1, 'ag.metrics.tokens.incremental.total': 5,
      'ag.metrics.tokens.incremental.reasoning': 0, 'ag.metrics.tokens.incremental.cached': 2,
    });
    expect(map(vercel, { 'ai.response.text': 't', 'ai.response.toolCalls': '[{"toolName":"f"}]' })).toEqual({
      'ag.data.outputs.text': 't', 'ag.data.outputs.toolCalls.0.toolName': 'f',
    });
    expect(map(vercel, { 'ai.operationId': 'ai.generateObject', 'ai.response.object': '{"a":1}',
      'ai.prompt': '{"system":"s","prompt":"p"}' })).toEqual({
      'ag.type.span': 'task', 'ag.data.inputs.system': 's', 'ag.data.inputs.prompt': 'p', 'ag.data.outputs.a': 1,
    });
    expect(map(vercel, { 'ai.operationId': '' })).toEqual({});
  });

  it('the text of the whole operation is its output; a message with a part that is not text keeps its parts', () => {
    expect(map(vercel, { 'ai.operationId': 'ai.streamText', 'ai.response.text': 'hello' })).toEqual({ 'ag.type.span': 'task', 'ag.data.outputs': 'hello' });
    expect(map(vercel, { 'ai.operationId': 'ai.streamText.doStream', 'ai.prompt.messages': JSON.stringify([
      { role: 'user', content: [{ type: 'text', text: 'what is ' }, { type: 'text', text: 'this?' }] },
      { role: 'user', content: [{ type: 'text', text: 'and' }, { type: 'image', image: 'https://x/cat.png' }] },
      { role: 'assistant', content: [] },
    ]) })).toEqual({
      'ag.type.span': 'chat', 'ag.data.inputs.prompt.0.role': 'user', 'ag.data.inputs.prompt.0.content': 'what is this?',
      'ag.data.inputs.prompt.1.role': 'user', 'ag.data.inputs.prompt.1.content.0.type': 'text', 'ag.data.inputs.prompt.1.content.0.text': 'and',
      'ag.data.inputs.prompt.1.content.1.type': 'image', 'ag.data.inputs.prompt.1.content.1.image': 'https://x/cat.png',
      'ag.data.inputs.prompt.2.role': 'assistant', 'ag.data.inputs.prompt.2.content': [],
    });
  });
});

describe('the mapping gaps real SDKs showed (issue 24)', () => {
  it('gen_ai tool definitions and streaming; OpenInference finish reason as a list', () => {
    expect(map(genai, {
      'gen_ai.tool.definitions': '[{"type":"function","name":"get_weather","parameters":{"type":"object"}}]', 'gen_ai.is_streaming': true,
    })).toEqual({
      'ag.data.inputs.tools.0.type': 'function', 'ag.data.inputs.tools.0.name': 'get_weather',
      'ag.data.inputs.tools.0.parameters.type': 'object', 'ag.meta.request.streaming': true,
    });
    expect(map(openinference, { 'llm.finish_reason': 'stop' })).toEqual({ 'ag.meta.response.finish_reasons': ['stop'] });
  });

  it('gen_ai system instructions lead the prompt as a system message (the Vercel AI SDK 7 sends them apart)', () => {
    const messages = '[{"role":"user","parts":[{"type":"text","content":"hi"}]}]';
    const prompt = (m: Record<string, unknown>) => Object.fromEntries(Object.entries(m).filter(([k]) => k.startsWith('ag.data.inputs.prompt') || k.startsWith('ag.meta.system')));
    expect(prompt(map(genai, { 'gen_ai.system_instructions': '[{"type":"text","content":"Be "},{"type":"text","content":"brief."}]', 'gen_ai.input.messages': messages }))).toEqual({
      'ag.data.inputs.prompt.0.role': 'system', 'ag.data.inputs.prompt.0.content': 'Be brief.',
      'ag.data.inputs.prompt.1.role': 'user', 'ag.data.inputs.prompt.1.content': 'hi',
    });
    expect(prompt(map(genai, { 'gen_ai.system_instructions': 'plain text' }))).toEqual({
      'ag.data.inputs.prompt.0.role': 'system', 'ag.data.inputs.prompt.0.content': 'plain text',
    });
    expect(prompt(map(genai, { 'gen_ai.system_instructions': '[{"type":"uri","uri":"https://x/rules.md"}]', 'gen_ai.input.messages': messages }))).toEqual({
      'ag.data.inputs.prompt.0.role': 'system', 'ag.data.inputs.prompt.0.parts.0.type': 'uri', 'ag.data.inputs.prompt.0.parts.0.uri': 'https://x/rules.md',
      'ag.data.inputs.prompt.1.role': 'user', 'ag.data.inputs.prompt.1.content': 'hi',
    });
  });

  it('one chat call gives the same ag.data from gen_ai (parts form) and from OpenInference', () => {
    const fromGenai = map(genai, {
      'gen_ai.input.messages': '[{"role":"system","parts":[{"type":"text","content":"Be brief."}]},{"role":"user","parts":[{"type":"text","content":"capital of "},{"type":"text","content":"France?"}]}]',
      'gen_ai.output.messages': '[{"role":"assistant","parts":[{"type":"text","content":"Paris"}],"finish_reason":"stop"}]',
    });
    const fromOpenInference = map(openinference, {
      'llm.input_messages.0.message.role': 'system', 'llm.input_messages.0.message.content': 'Be brief.',
      'llm.input_messages.1.message.role': 'user', 'llm.input_messages.1.message.content': 'capital of France?',
      'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': 'Paris',
    });
    const data = (m: Record<string, unknown>) => Object.fromEntries(Object.entries(m).filter(([k]) => k.startsWith('ag.data.')));
    expect(data(fromGenai)).toEqual(data(fromOpenInference));
    // The message's finish reason is the response's metadata, as OpenInference's llm.finish_reason...
    expect(fromGenai['ag.meta.response.finish_reasons']).toEqual(['stop']);
    // ...unless the span says it outright.
    expect(map(genai, {
      'gen_ai.response.finish_reasons': ['length'],
      'gen_ai.output.messages': '[{"role":"assistant","parts":[{"type":"text","content":"Par"}],"finish_reason":"stop"}]',
    })).toEqual({ 'ag.meta.response.finish_reasons': ['length'], 'ag.data.outputs.completion.0.role': 'assistant', 'ag.data.outputs.completion.0.content': 'Par' });
    // A message with a part that is not text keeps its parts.
    expect(map(genai, { 'gen_ai.input.messages': '[{"role":"user","parts":[{"type":"text","content":"what is this?"},{"type":"uri","uri":"https://x/cat.png"}]}]' })).toEqual({
      'ag.data.inputs.prompt.0.role': 'user', 'ag.data.inputs.prompt.0.parts.0.type': 'text', 'ag.data.inputs.prompt.0.parts.0.content': 'what is this?',
      'ag.data.inputs.prompt.0.parts.1.type': 'uri', 'ag.data.inputs.prompt.0.parts.1.uri': 'https://x/cat.png',
    });
  });
});

describe('Langfuse', () => {
  it('maps observation types, and input and output by shape', () => {
    expect(map(langfuse, { 'langfuse.observation.type': 'retriever', 'langfuse.observation.input': '"plain text"', 'langfuse.observation.output': '[1,2]' })).toEqual({
      'ag.type.span': 'query', 'ag.data.inputs.input': 'plain text', 'ag.data.outputs': [1, 2],
    });
    expect(map(langfuse, { 'langfuse.observation.type': 'SPAN', 'langfuse.observation.input': '{"a":{"b":1}}', 'langfuse.observation.output': 'not json' })).toEqual({
      'ag.type.span': 'task', 'ag.data.inputs.a.b': 1, 'ag.data.outputs': 'not json',
    });
    expect(map(langfuse, { 'langfuse.observation.type': 'unheard-of' })).toEqual({});
  });

  it('the one model name fills both model slots, as every family fills them', () => {
    expect(map(langfuse, { 'langfuse.observation.type': 'generation', 'langfuse.observation.model.name': 'gpt-4o-mini' })).toEqual({
      'ag.type.span': 'chat', 'ag.meta.request.model': 'gpt-4o-mini', 'ag.meta.response.model': 'gpt-4o-mini',
    });
  });

  it('generations: messages as prompt and completion; usage and cost keys renamed, numbers only', () => {
    expect(map(langfuse, {
      'langfuse.observation.type': 'generation', 'langfuse.observation.input': '[{"role":"user","content":"hi"}]',
      'langfuse.observation.output': '[{"role":"assistant","content":"a"},{"role":"assistant","content":"b"}]',
      'langfuse.observation.usage_details': '{"input":5,"output":2,"cache_read_input_tokens":1,"bad":"x"}',
      'langfuse.observation.cost_details': 'not json', 'langfuse.observation.model.parameters': '[1]',
    })).toEqual({
      'ag.type.span': 'chat', 'ag.data.inputs.prompt.0.role': 'user', 'ag.data.inputs.prompt.0.content': 'hi',
      'ag.data.outputs.completion.0.role': 'assistant', 'ag.data.outputs.completion.0.content': 'a',
      'ag.data.outputs.completion.1.role': 'assistant', 'ag.data.outputs.completion.1.content': 'b',
      'ag.metrics.tokens.incremental.prompt': 5, 'ag.metrics.tokens.incremental.completion': 2,
      'ag.metrics.tokens.incremental.cache_read_input_tokens': 1,
    });
  });

  it("the OpenAI drop-in's usage names (OpenAI's own) are the same counts", () => {
    expect(map(langfuse, { 'langfuse.observation.usage_details': '{"completion_tokens":1,"prompt_tokens":21,"total_tokens":22,"prompt_tokens_details":null}' })).toEqual({
      'ag.metrics.tokens.incremental.completion': 1, 'ag.metrics.tokens.incremental.prompt': 21, 'ag.metrics.tokens.incremental.total': 22,
    });
  });

  it('metadata flattened by the SDK or sent as JSON, trace fields, and the older user and session keys', () => {
    expect(map(langfuse, {
      'langfuse.observation.metadata.k': 'v', 'langfuse.trace.metadata': '{"team":"a"}', 'langfuse.observation.level': 'ERROR',
      'langfuse.observation.status_message': 'boom', 'langfuse.user.id': 'u', 'langfuse.session.id': 's',
    })).toEqual({
      'ag.meta.metadata.k': 'v', 'ag.meta.level': 'ERROR', 'ag.meta.status_message': 'boom',
      'ag.meta.trace.metadata.team': 'a', 'ag.user.id': 'u', 'ag.session.id': 's',
    });
  });
});

describe('precedence across families (§6.1)', () => {
  const run = (o: Record<string, AttrValue>, explicit: Record<string, AttrValue> = {}) => {
    const a = attrs(o);
    return [...applySemconv(a, attrs(explicit), familyMask(a), new Quarantine(), new FamilyMapper())];
  };

  it('a higher family claims a whole target: message lists are never mixed', () => {
    expect(run({
      'gen_ai.input.messages': '[{"role":"user","content":"from gen_ai"}]',
      'llm.input_messages.0.message.role': 'user', 'llm.input_messages.1.message.role': 'assistant',
      'gen_ai.prompt.0.content': 'from openllmetry', 'gen_ai.request.model': 'a', 'llm.model_name': 'b',
    })).toEqual([
      ['ag.meta.request.model', 'a'],
      ['ag.data.inputs.prompt.0.role', 'user'],
      ['ag.data.inputs.prompt.0.content', 'from gen_ai'],
      ['ag.meta.response.model', 'b'],
    ]);
  });

  it('explicit ag keys win over every family; Vercel wins over gen_ai', () => {
    expect(run(
      { 'ai.operationId': 'ai.toolCall', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'x',
        'ai.model.id': 'y', 'gen_ai.usage.input_tokens': 3 },
      { 'ag.meta.request': 'mine' },
    )).toEqual([
      ['ag.meta.request', 'mine'],
      ['ag.type.span', 'tool'],
      ['ag.metrics.tokens.incremental.prompt', 3],
    ]);
  });

  it('only families with a trigger key run', () => {
    expect(familyMask(attrs({ 'http.method': 'GET', 'service.x': 1 }))).toBe(0);
    expect(familyMask(attrs({ 'ai.operationId': 'x' }))).toBe(1);
    expect(familyMask(attrs({ 'gen_ai.prompt.0.role': 'user' }))).toBe(2 | 8);
    expect(familyMask(attrs({ 'llm.model_name': 'x' }))).toBe(4 | 8);
  });
});
