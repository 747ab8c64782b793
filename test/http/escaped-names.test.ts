// Member names written with JSON escapes (`"trace\u005fid"`) are the same names: over real HTTP, a body
// and the same body with its names escaped get the same answer and append the same spans, also when a
// span is rejected and for /tracing/traces/'s §7 checks. The body reader reads names through the string
// cache and escapes through JSON.parse; this holds the two to one meaning.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flatBody } from '../../bench/bodies.ts';
import { post, startReceiver, type Running } from './harness.ts';

let r: Running;
beforeAll(async () => {
  r = await startReceiver();
});
afterAll(() => r.close());

/** The same JSON with every `"trace_id":` written `"trace\u005fid":` (and so on for each `_` name). */
function escapedNames(body: Buffer): Buffer {
  return Buffer.from(body.toString('utf8').replace(/"([a-z]+)_([a-z]+)":/g, '"$1\\u005f$2":'));
}

async function ingest(body: Buffer) {
  r.consumer.appended.length = 0;
  const res = await post(r.port, '/tracing/spans/ingest', body);
  return { res, spans: r.consumer.spans() };
}

describe('POST /tracing/spans/ingest: escaped member names', () => {
  it('answer and append the same for the benchmark body (100 spans, attributes, events)', async () => {
    const body = flatBody(7);
    const other = escapedNames(body);
    const plain = await ingest(body);
    const escaped = await ingest(other);
    expect(plain.res.status).toBe(202);
    expect(plain.res.json.count).toBe(100);
    expect(plain.res.text).toBe(escaped.res.text);
    expect(plain.spans).toHaveLength(100);
    expect(plain.spans).toEqual(escaped.spans);
  });

  it('answer and append the same for nested attribute values and the rarer members', async () => {
    const spans = [0, 1, 2].map((i) => ({
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
      span_id: `00f067aa0ba902b${i}`,
      span_name: 'chat',
      start_time: '2026-04-16T18:18:18.123456Z',
      end_time: 1776363499,
      attributes: {
        'ag.data.inputs': { prompt: [{ role: 'user', content: `question ${i}` }], n: i },
        'ag.type.span': 'chat',
        tags: ['a', 'b'],
      },
      links: [{ trace_id: '5bf92f3577b34da6a3ce929d0e0e4736', span_id: 'a1b2c3d4e5f60718', attributes: { why: 'retry' } }],
      resource: { 'service.name': 'svc', host: { name: 'h1' } },
      scope: { name: 'agenta', version: '1.0' },
      otlp: { trace_state: 'k=v' },
      extra_member: [1, 2],
    }));
    const body = Buffer.from(JSON.stringify({ spans }));
    const plain = await ingest(body);
    const escaped = await ingest(escapedNames(body));
    expect(plain.res.status).toBe(202);
    expect(plain.res.text).toBe(escaped.res.text);
    expect(plain.spans).toEqual(escaped.spans);
    expect(plain.spans[1].attributes.get('ag.data.inputs.prompt.0.content')).toBe('question 1');
    expect(plain.spans[2].links).toHaveLength(1);
    expect(plain.spans[2].resource?.get('host.name')).toBe('h1');
  });

  it('a body with one rejected span: 202 with the rejection, the others appended', async () => {
    const spans = [0, 1, 2].map((i) => ({
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: `00f067aa0ba902b${i}`, start_time: 1776363498, end_time: 1776363499,
    }));
    spans[2].span_id = 'not hex';
    const { res, spans: appended } = await ingest(Buffer.from(JSON.stringify({ spans })));
    expect(res.status).toBe(202);
    expect(res.json.count).toBe(2);
    expect(res.json.rejected).toEqual([expect.objectContaining({ index: 2, span_id: 'not hex' })]);
    expect(appended.map((s) => s.spanId)).toEqual(['00f067aa0ba902b0', '00f067aa0ba902b1']);
  });
});

describe('POST /tracing/traces/: escaped member names', () => {
  const trace = (edit: (spans: Array<Record<string, unknown>>) => void = () => {}) => {
    const spans: Array<Record<string, unknown>> = [0, 1, 2].map((i) => ({
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: `00f067aa0ba902b${i}`, span_name: `s${i}`,
      start_time: 1776363498, end_time: 1776363499,
      ...(i > 0 ? { parent_id: '00f067aa0ba902b0' } : {}),
    }));
    edit(spans);
    return Buffer.from(JSON.stringify({ spans }));
  };

  async function both(body: Buffer) {
    r.consumer.appended.length = 0;
    const plain = await post(r.port, '/tracing/traces/', body);
    const plainSpans = r.consumer.spans();
    r.consumer.appended.length = 0;
    const escaped = await post(r.port, '/tracing/traces/', escapedNames(body));
    expect(plain.status).toBe(escaped.status);
    expect(plain.text).toBe(escaped.text);
    expect(plainSpans).toEqual(r.consumer.spans());
    return plain;
  }

  it('one trace with one root: the same 202 and spans', async () => {
    const res = await both(trace());
    expect(res.status).toBe(202);
    expect(res.json.count).toBe(3);
  });

  it('the §7 span checks answer the same: two trace ids, no root, two roots, no spans', async () => {
    const twoTraces = await both(trace((s) => { s[2].trace_id = '5bf92f3577b34da6a3ce929d0e0e4736'; }));
    expect(twoTraces.status).toBe(400);
    expect(twoTraces.json.detail).toMatch(/^Spans must share one trace_id; found 2/);
    const noRoot = await both(trace((s) => { s[0].parent_id = '00f067aa0ba902b9'; }));
    expect(noRoot.json.detail).toBe('Missing root span');
    const twoRoots = await both(trace((s) => { delete s[1].parent_id; }));
    expect(twoRoots.json.detail).toBe('Too many root spans');
    const empty = await both(Buffer.from('{"spans":[]}'));
    expect(empty.status).toBe(400);
    expect(empty.json.detail).toBe('Missing spans');
  });
});
