// ag-namespace.md §8 through the whole daemon: a child process with a temp config, real HTTP (tracing API
// and OTLP/JSON), and the file exporters' output read back (flat and nested shapes). Expected values are
// the spec's, key order included.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../helpers/daemon.ts';

const config = `receivers:
  http:
    endpoint: 127.0.0.1:0
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:0
processors:
  batch:
    timeout: 10ms
exporters:
  file/flat:
    path: ./flat.jsonl
    flush_interval: 0
  file/nested:
    path: ./nested.jsonl
    flush_interval: 0
    attributes_shape: nested
service:
  pipelines:
    traces:
      receivers: [http, otlp]
      processors: [flatten, validate, namespace, batch]
      exporters: [file/flat, file/nested]
`;

const START = '2026-04-16T18:18:18Z';
const END = '2026-04-16T18:18:19.5Z';
let daemon: Daemon;
let next = 0;

/** Fresh ids per example so that records can be found in the shared output. */
function ids() {
  next++;
  return { trace_id: next.toString(16).padStart(32, 'a'), span_id: next.toString(16).padStart(16, 'b') };
}

type Record = { [key: string]: unknown; attributes: { [key: string]: unknown } };

async function records(file: string, spanIds: string[]): Promise<Record[]> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const text = await readFile(join(daemon.dir, file), 'utf8').catch(() => '');
    const all = text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record);
    const found = spanIds.map((id) => all.find((r) => r.span_id === id));
    if (found.every(Boolean)) return found as Record[];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`spans ${spanIds.join(', ')} never reached ${file}`);
}

async function postSpans(spans: object[]): Promise<void> {
  const res = await fetch(`${daemon.url('http')}/tracing/spans/ingest`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ spans }),
  });
  expect(res.status).toBe(202);
}

/** One span through the tracing API; returns its flat and nested records. */
async function viaHttp(attributes: object, extra: object = {}): Promise<[Record, Record]> {
  const id = ids();
  await postSpans([{ ...id, start_time: START, end_time: END, attributes, ...extra }]);
  return [(await records('flat.jsonl', [id.span_id]))[0], (await records('nested.jsonl', [id.span_id]))[0]];
}

function anyValue(v: unknown): object {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (Number.isInteger(v)) return { intValue: String(v) };
  return { doubleValue: v };
}

/** One span through OTLP/HTTP JSON; returns its flat record. */
async function viaOtlp(attributes: { [key: string]: unknown }, resource: { [key: string]: unknown } = {}, scope = { name: 'test' }): Promise<Record> {
  const id = ids();
  const body = {
    resourceSpans: [{
      resource: { attributes: Object.entries(resource).map(([key, v]) => ({ key, value: anyValue(v) })) },
      scopeSpans: [{
        scope,
        spans: [{
          traceId: id.trace_id, spanId: id.span_id, name: 'op', kind: 1,
          startTimeUnixNano: '1776363498000000000', endTimeUnixNano: '1776363499500000000',
          attributes: Object.entries(attributes).map(([key, v]) => ({ key, value: anyValue(v) })),
        }],
      }],
    }],
  };
  const res = await fetch(`${daemon.url('otlp')}/v1/traces`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await records('flat.jsonl', [id.span_id]))[0];
}

/** Attributes as ordered entries, so key order is part of the comparison. */
const entries = (o: object) => Object.entries(o);

beforeAll(async () => {
  daemon = await startDaemon(config);
});
afterAll(async () => {
  expect(await daemon.stop()).toBe(0);
});

describe('ag-namespace.md §8 examples through the daemon', () => {
  it('E1 flatten at the edge, nested shape back', async () => {
    const [flat, nested] = await viaHttp({
      ag: { type: { span: 'llm' }, data: { inputs: { docs: [{ text: 'a' }, { text: 'b' }], ids: [1, 2] } } },
      http: { method: 'POST' }, 'http.route': '/x',
    });
    expect(entries(flat.attributes)).toEqual(entries({
      'ag.type.span': 'llm', 'ag.type.trace': 'invocation', 'ag.data.inputs.docs.0.text': 'a',
      'ag.data.inputs.docs.1.text': 'b', 'ag.data.inputs.ids': [1, 2], 'ag.metrics.duration.cumulative': 1500,
      'http.method': 'POST', 'http.route': '/x',
    }));
    expect([flat.span_type, flat.trace_type]).toEqual(['llm', 'invocation']);
    expect(nested.attributes).toEqual({
      ag: {
        type: { span: 'llm', trace: 'invocation' },
        data: { inputs: { docs: [{ text: 'a' }, { text: 'b' }], ids: [1, 2] } },
        metrics: { duration: { cumulative: 1500 } },
      },
      http: { method: 'POST', route: '/x' },
    });
  });

  it('E3 JSON strings in data slots', async () => {
    const [flat] = await viaHttp({
      'ag.data.inputs': '{"q":"hi"}', 'ag.data.parameters': '[1,2]', 'ag.data.internals': 'not json', 'ag.data.outputs': '{"a":1}',
    });
    expect(entries(flat.attributes)).toEqual(entries({
      'ag.type.span': 'task', 'ag.type.trace': 'invocation', 'ag.data.inputs.q': 'hi', 'ag.data.outputs': '{"a":1}',
      'ag.metrics.duration.cumulative': 1500, 'ag.unsupported.data.parameters': '[1,2]', 'ag.unsupported.data.internals': 'not json',
    }));
  });

  it('E4 typical client span, over the tracing API and over OTLP', async () => {
    const input = {
      'ag.type.span': 'llm', 'ag.data.inputs': '{"q":"hi"}', 'ag.data.outputs': 'hello',
      'ag.metrics.tokens.incremental.prompt': 5, 'ag.session.id': 's-1', 'ag.custom': 1, 'gen_ai.request.model': 'gpt-4o',
    };
    const expected = [
      ['ag.type.span', 'llm'], ['ag.type.trace', 'invocation'], ['ag.data.inputs.q', 'hi'], ['ag.data.outputs', 'hello'],
      ['ag.metrics.duration.cumulative', 1500], ['ag.metrics.tokens.incremental.prompt', 5], ['ag.session.id', 's-1'],
      ['ag.unsupported.custom', 1], ['gen_ai.request.model', 'gpt-4o'],
    ];
    const [flat] = await viaHttp(input);
    expect(entries(flat.attributes)).toEqual(expected);
    expect(flat.session_id).toBe('s-1');
    const otlp = await viaOtlp(input);
    expect(entries(otlp.attributes)).toEqual([...expected.slice(0, 7), ['ag.meta.request.model', 'gpt-4o'], ...expected.slice(7)]);
  });

  it('E5 span type precedence', async () => {
    const [flat] = await viaHttp({ 'ag.type.span': 'robot', 'ag.type.color': 'red' }, { span_type: 'tool' });
    expect(flat.span_type).toBe('tool');
    expect(entries(flat.attributes)).toEqual(entries({
      'ag.type.span': 'tool', 'ag.type.trace': 'invocation', 'ag.metrics.duration.cumulative': 1500,
      'ag.unsupported.type.span': 'robot', 'ag.unsupported.type.color': 'red',
    }));
    expect((await viaHttp({ 'ag.type.span': 'chat' }, { span_type: 'tool' }))[0].span_type).toBe('chat');
    expect((await viaHttp({}))[0].span_type).toBe('task');
  });

  it('E6 trace type inferred per trace within one request', async () => {
    const [a, b, c, d, e] = [ids(), ids(), ids(), ids(), ids()];
    const t1 = a.trace_id;
    const t3 = d.trace_id;
    const base = { start_time: START, end_time: END };
    await postSpans([
      { ...a, ...base, links: [] },
      { ...b, trace_id: t1, parent_id: a.span_id, ...base },
      { ...c, ...base, trace_type: 'annotation' },
      { ...d, ...base, attributes: { 'ag.type.trace': 'unknown' } },
      { ...e, trace_id: t3, ...base, attributes: { 'ag.type.trace': 'sideways' } },
    ]);
    const out = await records('flat.jsonl', [a, b, c, d, e].map((x) => x.span_id));
    expect(out.map((r) => r.trace_type)).toEqual(['annotation', 'annotation', 'annotation', 'invocation', 'invocation']);
    expect(out[4].attributes['ag.unsupported.type.trace']).toBe('sideways');
  });

  it('E7 references and legacy refs', async () => {
    const [flat] = await viaHttp({
      'ag.references.application.id': '4BF92F35-77B3-4DA6-A3CE-929D0E0E4736', 'ag.references.application.slug': 'my app',
      'ag.references.evaluator.version': 3, 'ag.references.widget.id': 'w1', 'ag.refs.variant.slug': 'v-1',
    });
    expect(entries(flat.attributes)).toEqual(entries({
      'ag.type.span': 'task', 'ag.type.trace': 'invocation', 'ag.metrics.duration.cumulative': 1500,
      'ag.references.application.id': '4bf92f35-77b3-4da6-a3ce-929d0e0e4736', 'ag.references.evaluator.version': '3',
      'ag.references.application_variant.slug': 'v-1',
      'ag.unsupported.references.application.slug': 'my app', 'ag.unsupported.references.widget.id': 'w1',
    }));
    expect(flat.references).toEqual([
      { id: '4bf92f35-77b3-4da6-a3ce-929d0e0e4736', attributes: { key: 'application' } },
      { version: '3', attributes: { key: 'evaluator' } },
      { slug: 'v-1', attributes: { key: 'application_variant' } },
    ]);
  });

  it('E8 flags, tags, meta.configuration, selector', async () => {
    const input = {
      'ag.flags.is_custom': 1, 'ag.flags.level': 5, 'ag.tags.env': 'prod', 'ag.tags.list': ['a'],
      'ag.meta.configuration.temperature': 0.2, 'ag.meta.reviewer': 'r1', 'ag.selector.k': 'v', 'ag.selector.n': 2,
    };
    const [flat] = await viaHttp(input);
    expect(entries(flat.attributes)).toEqual(entries({
      'ag.type.span': 'task', 'ag.type.trace': 'invocation', 'ag.data.parameters.temperature': 0.2,
      'ag.metrics.duration.cumulative': 1500, 'ag.flags.is_custom': true, 'ag.tags.env': 'prod',
      'ag.meta.reviewer': 'r1', 'ag.selector.k': 'v', 'ag.unsupported.flags.level': 5,
      'ag.unsupported.tags.list': ['a'], 'ag.unsupported.selector.n': 2,
    }));
    const [withParams] = await viaHttp({ ...input, 'ag.data.parameters.model': 'x' });
    const keys = Object.keys(withParams.attributes);
    expect(keys.filter((k) => k.startsWith('ag.data.parameters'))).toEqual(['ag.data.parameters.model']);
    expect(keys.find((k) => k.startsWith('ag.unsupported'))).toBe('ag.unsupported.meta.configuration.temperature');
  });

  it('E9 metrics', async () => {
    const [flat] = await viaHttp({
      'ag.metrics.duration.incremental.total': 7, 'ag.metrics.errors.cumulative': true,
      'ag.metrics.tokens.incremental.prompt': '5', 'ag.metrics.unit.tokens.completion': 3, 'ag.metrics.latency': 9,
    }, { events: [{ name: 'exception', timestamp: START }, { name: 'log', timestamp: START }] });
    expect(entries(flat.attributes)).toEqual(entries({
      'ag.type.span': 'task', 'ag.type.trace': 'invocation', 'ag.metrics.duration.incremental': 7,
      'ag.metrics.duration.cumulative': 1500, 'ag.metrics.errors.incremental': 1,
      'ag.metrics.tokens.incremental.completion': 3, 'ag.unsupported.metrics.errors.cumulative': true,
      'ag.unsupported.metrics.tokens.incremental.prompt': '5', 'ag.unsupported.metrics.latency': 9,
    }));
  });

  it('E10 gen_ai over OTLP is mapped; the same attributes over the tracing API are not', async () => {
    const input = {
      'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 5, 'gen_ai.input.messages': '[{"role":"user","content":"hi"}]',
    };
    const otlp = await viaOtlp(input);
    expect(otlp.span_type).toBe('chat');
    expect(entries(otlp.attributes)).toEqual([
      ['ag.type.span', 'chat'], ['ag.type.trace', 'invocation'], ['ag.data.inputs.prompt.0.role', 'user'],
      ['ag.data.inputs.prompt.0.content', 'hi'], ['ag.metrics.duration.cumulative', 1500],
      ['ag.metrics.tokens.incremental.prompt', 10], ['ag.metrics.tokens.incremental.completion', 5],
      ['ag.metrics.tokens.incremental.total', 15], ['ag.meta.request.model', 'gpt-4o'], ...entries(input),
    ]);
    const [http] = await viaHttp(input);
    expect(http.span_type).toBe('task');
    expect(entries(http.attributes)).toEqual([
      ['ag.type.span', 'task'], ['ag.type.trace', 'invocation'], ['ag.metrics.duration.cumulative', 1500], ...entries(input),
    ]);
  });

  it('E11 OpenInference chat span over OTLP', async () => {
    const input = {
      'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o', 'input.value': '{"question":"hi"}',
      'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': 'hi',
      'output.value': 'hello', 'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': 'hello', 'llm.token_count.prompt': 3, 'llm.token_count.completion': 1,
    };
    const otlp = await viaOtlp(input);
    expect(entries(otlp.attributes)).toEqual([
      ['ag.type.span', 'chat'], ['ag.type.trace', 'invocation'], ['ag.data.inputs.prompt.0.role', 'user'],
      ['ag.data.inputs.prompt.0.content', 'hi'], ['ag.data.outputs.completion.0.role', 'assistant'],
      ['ag.data.outputs.completion.0.content', 'hello'], ['ag.metrics.duration.cumulative', 1500],
      ['ag.metrics.tokens.incremental.prompt', 3], ['ag.metrics.tokens.incremental.completion', 1],
      ['ag.meta.request.model', 'gpt-4o'], ['ag.meta.response.model', 'gpt-4o'], ...entries(input),
    ]);
  });

  it('E12 Vercel AI tool call over OTLP', async () => {
    const input = {
      'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'search', 'ai.toolCall.args': '{"q":"x"}',
      'ai.toolCall.result': '["r1","r2"]',
    };
    const otlp = await viaOtlp(input);
    expect(entries(otlp.attributes)).toEqual([
      ['ag.type.span', 'tool'], ['ag.type.trace', 'invocation'], ['ag.data.inputs.name', 'search'],
      ['ag.data.inputs.args.q', 'x'], ['ag.data.outputs', ['r1', 'r2']], ['ag.metrics.duration.cumulative', 1500],
      ...entries(input),
    ]);
  });

  it('E13 explicit ag wins, @ag.type=json:, resource and scope untouched', async () => {
    const otlp = await viaOtlp({
      'ag.type.node': 'Workflow', 'ag.data.inputs': '@ag.type=json:{"q":"hi"}', 'ag.meta.request.model': 'mine',
      'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o',
    }, { 'service.name': 'shop' }, { name: 'agenta', version: '0.50.0' } as { name: string });
    expect(otlp.span_type).toBe('workflow');
    expect(entries(otlp.attributes)).toEqual([
      ['ag.type.span', 'workflow'], ['ag.type.trace', 'invocation'], ['ag.data.inputs.q', 'hi'],
      ['ag.metrics.duration.cumulative', 1500], ['ag.meta.request.model', 'mine'],
      ['gen_ai.operation.name', 'chat'], ['gen_ai.request.model', 'gpt-4o'],
    ]);
    expect(otlp.resource).toEqual({ 'service.name': 'shop' });
    expect(otlp.scope).toEqual({ name: 'agenta', version: '0.50.0' });
  });

  it('E14 identity promotion on roots only', async () => {
    const r = ids();
    const c = { ...ids(), trace_id: r.trace_id };
    const r2 = ids();
    const base = { start_time: START, end_time: END };
    await postSpans([
      { ...r, ...base, user_id: 'u-old', attributes: { 'ag.session.id': 's-9', 'ag.user.id': 42, 'ag.session.extra': 'x' } },
      { ...c, ...base, parent_id: r.span_id, session_id: 'c-1', attributes: { 'ag.session.id': 's-x' } },
      { ...r2, ...base, session_id: 'keep' },
    ]);
    const [root, child, root2] = await records('flat.jsonl', [r.span_id, c.span_id, r2.span_id]);
    expect([root.session_id, root.user_id]).toEqual(['s-9', '42']);
    expect(entries(root.attributes).filter(([k]) => /^ag\.(session|user|unsupported)/.test(k))).toEqual([
      ['ag.session.id', 's-9'], ['ag.user.id', '42'], ['ag.unsupported.session.extra', 'x'],
    ]);
    expect(child.session_id).toBe('c-1');
    expect(child.attributes['ag.session.id']).toBe('s-x');
    expect(root2.session_id).toBe('keep');
  });

  it('E15 shadowing, nested shape with _shadowed, and idempotence through a second pass', async () => {
    const [flat, nested] = await viaHttp({ 'ag.data.outputs': 'text', 'ag.data.outputs.toolCalls.0.id': 'c1', a: 1, 'a.b': 2 });
    const expected = [
      ['ag.type.span', 'task'], ['ag.type.trace', 'invocation'], ['ag.data.outputs', 'text'],
      ['ag.metrics.duration.cumulative', 1500], ['ag.unsupported._shadowed.data.outputs.toolCalls.0.id', 'c1'],
      ['a', 1], ['a.b', 2],
    ];
    expect(entries(flat.attributes)).toEqual(expected);
    expect(nested.attributes).toEqual({
      ag: {
        type: { span: 'task', trace: 'invocation' }, data: { outputs: 'text' },
        metrics: { duration: { cumulative: 1500 } },
        unsupported: { _shadowed: { data: { outputs: { toolCalls: [{ id: 'c1' }] } } } },
      },
      a: 1,
      _shadowed: { 'a.b': 2 },
    });
    // The written record, posted back, comes out identical (idempotence, key order included).
    const again = ids();
    await postSpans([{ ...flat, ...again }]);
    const [second] = await records('flat.jsonl', [again.span_id]);
    const masked = (r: Record) => ({ ...r, trace_id: 'x', span_id: 'x' });
    expect(masked(second)).toEqual(masked(flat));
    expect(entries(second.attributes)).toEqual(expected);
  });
});
