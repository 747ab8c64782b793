// ingest-api.md §2: transport (415), compression, size/depth/span-count limits (413), the §2.3 422 rows,
// and refusals (429/503 + Retry-After) with nothing appended, over real HTTP.
import { deflateRawSync, deflateSync, gzipSync, zstdCompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RefusedError } from '../../pipeline/errors.ts';
import {
  flatSpan, post, postChunked, recordingConsumer, ROUTES, send, startReceiver, TRACE_ID, type Running,
} from './harness.ts';

const VALID: Record<string, unknown> = {
  '/tracing/spans/ingest': { spans: [flatSpan(1)] },
  '/tracing/traces/': { spans: [flatSpan(1)] },
  '/simple/traces/': { trace: { data: { outputs: 'ok' } } },
};
const json = (route: string) => Buffer.from(JSON.stringify(VALID[route]));

let r: Running;
let small: Running;
beforeAll(async () => {
  r = await startReceiver();
  small = await startReceiver({ max_request_body_size: 2000, max_spans_per_request: 3, max_nesting_depth: 64 });
});
afterAll(async () => {
  await r.close();
  await small.close();
});

describe('Content-Type and Content-Encoding (§2.4)', () => {
  for (const route of ROUTES) {
    it(`${route}: 415 for text/plain, charset=latin-1 and br; nothing appended`, async () => {
      const before = r.consumer.appended.length;
      const a = await post(r.port, route, json(route), { 'content-type': 'text/plain' });
      expect(a.status).toBe(415);
      expect(a.json).toEqual({ detail: 'Unsupported Content-Type: text/plain' });
      const b = await post(r.port, route, json(route), { 'content-type': 'application/json; charset=latin-1' });
      expect(b.status).toBe(415);
      expect(b.json.detail).toBe('Unsupported Content-Type: application/json; charset=latin-1');
      const c = await post(r.port, route, json(route), { 'content-encoding': 'br' });
      expect(c.status).toBe(415);
      expect(c.json).toEqual({ detail: 'Unsupported Content-Encoding: br' });
      expect(r.consumer.appended.length).toBe(before);
    });

    it(`${route}: accepts +json types, utf-8 in any case, and no Content-Type at all`, async () => {
      for (const type of ['application/vnd.api+json', 'Application/JSON; Charset="UTF-8"', 'application/json; foo=bar']) {
        expect((await post(r.port, route, json(route), { 'content-type': type })).status, type).toBe(202);
      }
      // No Content-Type header at all, or an empty one: read as JSON.
      expect((await send(r.port, 'POST', route, json(route), { 'content-type': undefined })).status).toBe(202);
      expect((await send(r.port, 'POST', route, json(route), { 'content-type': '' })).status).toBe(202);
    });

    it(`${route}: gzip, x-gzip, deflate (zlib and raw), zstd, identity and stacked codings`, async () => {
      const body = json(route);
      const cases: Array<[string, Buffer]> = [
        ['gzip', gzipSync(body)],
        ['X-GZIP', gzipSync(body)],
        ['deflate', deflateSync(body)],
        ['deflate', deflateRawSync(body)],
        ['zstd', zstdCompressSync(body)],
        ['identity', body],
        ['gzip, zstd', zstdCompressSync(gzipSync(body))],
        ['deflate,identity, gzip', gzipSync(deflateRawSync(body))],
      ];
      for (const [encoding, data] of cases) {
        const before = r.consumer.appended.length;
        const res = await post(r.port, route, data, { 'content-encoding': encoding });
        expect(res.status, encoding).toBe(202);
        expect(r.consumer.appended.length).toBe(before + 1);
      }
    });

    it(`${route}: corrupt compressed data is 400 naming the coding`, async () => {
      const body = json(route);
      const gz = gzipSync(body);
      const cases: Array<[string, Buffer]> = [
        ['gzip', gz.subarray(0, gz.length - 6)],
        ['gzip', Buffer.from('definitely not gzip')],
        ['deflate', Buffer.from('definitely not deflate data at all')],
        ['zstd', Buffer.from('not zstd')],
      ];
      for (const [encoding, data] of cases) {
        const res = await post(r.port, route, data, { 'content-encoding': encoding });
        expect(res.status, encoding).toBe(400);
        expect(res.json).toEqual({ detail: `Invalid compressed body: ${encoding}` });
      }
    });
  }
});

describe('size, depth and span-count limits (413)', () => {
  it('raw body over the limit: 413 from Content-Length, before reading', async () => {
    const big = Buffer.alloc(2001, 0x20);
    const res = await post(small.port, '/tracing/spans/ingest', big);
    expect(res.status).toBe(413);
    expect(res.json.detail).toContain('max_request_body_size (2000 bytes)');
  });

  it('raw body over the limit: 413 while reading a chunked body', async () => {
    const chunks = Array.from({ length: 5 }, () => Buffer.alloc(1000, 0x20));
    const res = await postChunked(small.port, '/tracing/spans/ingest', chunks);
    expect(res.status).toBe(413);
    expect(res.json.detail).toContain('2000');
  });

  it('decompressed body over the limit: 413 (gzip, deflate, zstd), a body at the limit passes', async () => {
    const spans = Array.from({ length: 40 }, () => ({ span_name: 'x'.repeat(40) }));
    const big = Buffer.from(JSON.stringify({ spans }));
    expect(big.length).toBeGreaterThan(2000);
    for (const [encoding, data] of [['gzip', gzipSync(big)], ['deflate', deflateSync(big)], ['zstd', zstdCompressSync(big)]] as const) {
      expect(data.length).toBeLessThan(2000);
      const res = await post(small.port, '/tracing/spans/ingest', data, { 'content-encoding': encoding });
      expect(res.status, encoding).toBe(413);
      expect(res.json.detail).toMatch(/^Decompressed body exceeds max_request_body_size/);
    }
    const exact = Buffer.from(JSON.stringify({ spans: [flatSpan(1)] }).padEnd(2000, ' '));
    const ok = await post(small.port, '/tracing/spans/ingest', gzipSync(exact), { 'content-encoding': 'gzip' });
    expect(ok.status).toBe(202);
  });

  it('depth 65 is 413 and depth 64 is not', async () => {
    const nested = (depth: number) => '{"spans":[' + '['.repeat(depth - 2) + ']'.repeat(depth - 2) + ']}';
    const over = await post(r.port, '/tracing/spans/ingest', nested(65));
    expect(over.status).toBe(413);
    expect(over.json.detail).toContain('max_nesting_depth (64)');
    const at = await post(r.port, '/tracing/spans/ingest', nested(64));
    expect(at.status).toBe(422); // every span rejected: the depth itself was fine
  });

  for (const route of ROUTES) {
    it(`${route}: a 10,000-deep body is 413 without a crash; the next request succeeds`, async () => {
      const deep = '{"spans":' + '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000) + '}';
      const res = await post(r.port, route, deep);
      expect(res.status).toBe(413);
      const arrays = '['.repeat(10_000);
      expect((await post(r.port, route, arrays)).status).toBe(413);
      expect((await post(r.port, route, json(route))).status).toBe(202);
    });
  }

  it('100,001 flat spans is 413 at the default limit, nothing appended', async () => {
    const before = r.consumer.appended.length;
    const body = '{"spans":[' + Array(100_001).fill('{}').join(',') + ']}';
    const res = await post(r.port, '/tracing/spans/ingest', body);
    expect(res.status).toBe(413);
    expect(res.json.detail).toContain('max_spans_per_request (100000)');
    expect(r.consumer.appended.length).toBe(before);
  });

  it('tree nodes count toward the span limit, valid or not', async () => {
    const traces = { [TRACE_ID]: { spans: { a: { spans: { b: [{}, 'x'] } }, c: 5 } } };
    const res = await post(small.port, '/tracing/spans/ingest', { traces });
    expect(res.status).toBe(413);
    const fits = { [TRACE_ID]: { spans: { a: { spans: { b: ['x'] } }, c: 5 } } };
    expect((await post(small.port, '/tracing/spans/ingest', { traces: fits })).status).toBe(422);
  });
});

describe('422 for an unusable body (§2.3)', () => {
  const rows: Array<[string, string | Buffer, Array<string>, string]> = [
    ['empty body', '', ['body'], 'missing'],
    ['not JSON', '{"spans": [', ['body'], 'json_invalid'],
    ['not UTF-8', Buffer.concat([Buffer.from('{"spans":[{"span_name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}]}')]), ['body'], 'json_invalid'],
    ['top level an array', '[]', ['body'], 'model_attributes_type'],
    ['top level a string', '"spans"', ['body'], 'model_attributes_type'],
    ['top level null', 'null', ['body'], 'model_attributes_type'],
    ['both spans and traces', '{"spans":[],"traces":{}}', ['body'], 'exactly_one'],
    ['neither', '{}', ['body'], 'exactly_one'],
    ['spans null only', '{"spans":null}', ['body'], 'exactly_one'],
    ['spans not an array', '{"spans":{}}', ['body', 'spans'], 'list_type'],
    ['traces not an object', '{"traces":[]}', ['body', 'traces'], 'dict_type'],
    ['traces.<key> not an object', `{"traces":{"${TRACE_ID}":[1]}}`, ['body', 'traces', TRACE_ID], 'dict_type'],
    ['traces.<key>.spans not an object', `{"traces":{"k":{"spans":[]}}}`, ['body', 'traces', 'k', 'spans'], 'dict_type'],
  ];
  for (const route of ['/tracing/spans/ingest', '/tracing/traces/']) {
    for (const [name, body, loc, type] of rows) {
      it(`${route}: ${name} -> loc ${JSON.stringify(loc)}, type ${type}`, async () => {
        const res = await post(r.port, route, body);
        expect(res.status).toBe(422);
        expect(res.json.detail).toHaveLength(1);
        expect(res.json.detail[0]).toMatchObject({ loc, type });
        expect(typeof res.json.detail[0].msg).toBe('string');
      });
    }
  }

  it('{"spans": []} is 202 count 0 on ingest', async () => {
    const res = await post(r.port, '/tracing/spans/ingest', { spans: [] });
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ count: 0, links: [] });
    const t = await post(r.port, '/tracing/spans/ingest', { traces: {} });
    expect(t.json).toEqual({ count: 0, links: [] });
  });

  it('the simple route answers the body-level rows too', async () => {
    for (const [body, type] of [['', 'missing'], ['{', 'json_invalid'], ['[1]', 'model_attributes_type']] as const) {
      const res = await post(r.port, '/simple/traces/', body);
      expect(res.status).toBe(422);
      expect(res.json.detail[0]).toMatchObject({ loc: ['body'], type });
    }
  });
});

describe('refusals: 503/429 + Retry-After, nothing appended', () => {
  for (const route of ROUTES) {
    it(`${route}: the stream refuses (full): 503 + Retry-After, nothing appended`, async () => {
      const consumer = recordingConsumer({ refuseAppend: new RefusedError('ingest stream is full', 1000, 503) });
      const full = await startReceiver({ retry_after: 2500 }, consumer);
      try {
        const res = await post(full.port, route, json(route));
        expect(res.status).toBe(503);
        expect(res.headers['retry-after']).toBe('3');
        expect(res.json).toEqual({ detail: 'ingest stream is full' });
        expect(consumer.appended).toHaveLength(0);
      } finally {
        await full.close();
      }
    });
  }

  it('a 429 refusal keeps its status', async () => {
    const consumer = recordingConsumer({ refuseAppend: new RefusedError('rate limited', 1000, 429) });
    const limited = await startReceiver({}, consumer);
    try {
      const res = await post(limited.port, '/tracing/spans/ingest', json('/tracing/spans/ingest'));
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toBe('1');
    } finally {
      await limited.close();
    }
  });

  it('admission refused (memory limit): 503 + Retry-After before the body is decoded', async () => {
    const consumer = recordingConsumer({ refuseAdmit: { message: 'over service.memory_limit_mib', retryAfterMs: 1000 } });
    const busy = await startReceiver({}, consumer);
    try {
      const res = await post(busy.port, '/tracing/spans/ingest', '{"not": "even decoded"');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.json.detail).toContain('memory_limit');
      expect(consumer.appended).toHaveLength(0);
    } finally {
      await busy.close();
    }
  });
});
