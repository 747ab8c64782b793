// The receiver's two paths for POST /tracing/spans/ingest over real HTTP (docs/performance.md, round 0520): a body the
// flat-body decoder reads, and the same spans in a body it gives up on (its member names written with
// escapes, which JSON reads as the same names), must get the same answer and append the same spans after
// namespace. The decoder's own equivalence is held by its differential test; this holds the glue: the
// batch it hands on, validate leaving it alone, the 202 body and the append.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flatBody } from '../../bench/bodies.ts';
import { decodeFlatSpans } from '../../codec/tracing/flat-decoder.ts';
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

describe('POST /tracing/spans/ingest: the flat-body decoder and the general path', () => {
  it('answer and append the same for the benchmark body (100 spans, attributes, events)', async () => {
    const body = flatBody(7);
    const other = escapedNames(body);
    expect(decodeFlatSpans(body, { maxSpans: 100_000, maxDepth: 64 })).toHaveLength(100);
    expect(decodeFlatSpans(other, { maxSpans: 100_000, maxDepth: 64 })).toBeUndefined();
    const fast = await ingest(body);
    const general = await ingest(other);
    expect(fast.res.status).toBe(202);
    expect(fast.res.json.count).toBe(100);
    expect(fast.res.text).toBe(general.res.text);
    expect(fast.spans).toHaveLength(100);
    expect(fast.spans).toEqual(general.spans);
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
    expect(decodeFlatSpans(body, { maxSpans: 100_000, maxDepth: 64 })).toHaveLength(3);
    const fast = await ingest(body);
    const general = await ingest(escapedNames(body));
    expect(fast.res.status).toBe(202);
    expect(fast.res.text).toBe(general.res.text);
    expect(fast.spans).toEqual(general.spans);
    expect(fast.spans[1].attributes.get('ag.data.inputs.prompt.0.content')).toBe('question 1');
    expect(fast.spans[2].links).toHaveLength(1);
    expect(fast.spans[2].resource?.get('host.name')).toBe('h1');
  });

  it('a body with one rejected span takes the general path: 202 with the rejection, the others appended', async () => {
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

describe('POST /tracing/traces/: the flat-body decoder and the general path', () => {
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
    const fast = await post(r.port, '/tracing/traces/', body);
    const fastSpans = r.consumer.spans();
    r.consumer.appended.length = 0;
    const general = await post(r.port, '/tracing/traces/', escapedNames(body));
    expect(fast.status).toBe(general.status);
    expect(fast.text).toBe(general.text);
    expect(fastSpans).toEqual(r.consumer.spans());
    return fast;
  }

  it('one trace with one root: the same 202 and spans', async () => {
    expect(decodeFlatSpans(trace(), { maxSpans: 100_000, maxDepth: 64 })).toHaveLength(3);
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
