import { gzipSync, deflateSync, deflateRawSync, zstdCompressSync } from 'node:zlib';
import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { StartupError } from '../../pipeline/errors.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { decodeExportResponse, decodeStatus, ExportRequestEncoder } from '../../codec/otlp/index.ts';
import { OtlpReceiver } from '../../receivers/otlp/receiver.ts';
import { expectedFields, receivedFields, RecordingConsumer, sdkSpans } from './helpers.ts';
import { AttributeList } from '../../model/attributes/list.ts';

const requestEncoder = new ExportRequestEncoder();

let consumer: RecordingConsumer;
let receiver: OtlpReceiver;
let base: string;
let spans: ReadableSpan[];
let proto: Uint8Array;
let json: Uint8Array;
const LIMIT = 64 * 1024;
const MAX_SPANS = 50;

beforeAll(async () => {
  spans = await sdkSpans(3);
  proto = ProtobufTraceSerializer.serializeRequest(spans)!;
  json = JsonTraceSerializer.serializeRequest(spans)!;
  consumer = new RecordingConsumer();
  receiver = new OtlpReceiver({ protocols: { http: { endpoint: '127.0.0.1:0', max_request_body_size: LIMIT, max_spans_per_request: MAX_SPANS } } }, consumer, silentLogger);
  await receiver.start();
  base = receiver.endpoints()[0];
});

afterAll(() => receiver.shutdown());

beforeEach(() => {
  consumer.appended.length = 0;
  consumer.wireBytes.length = 0;
  consumer.appendError = undefined;
  consumer.admitRefusal = undefined;
  consumer.consumed = 0;
});

function post(path: string, body: Uint8Array | string, headers: Record<string, string>) {
  return fetch(base + path, { method: 'POST', body, headers });
}

const PROTO = { 'content-type': 'application/x-protobuf' };
const JSON_CT = { 'content-type': 'application/json' };

describe('otlp receiver over HTTP', () => {
  it('accepts protobuf: 200, empty ExportTraceServiceResponse, every span appended with its fields', async () => {
    const res = await post('/v1/traces', proto, PROTO);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    expect(new Uint8Array(await res.arrayBuffer())).toHaveLength(0);
    expect(consumer.appended.map(receivedFields)).toEqual(spans.map(expectedFields));
    // The stream's size estimate is taken from the body (pipeline/stream/size.ts).
    expect(consumer.wireBytes).toEqual([proto.length]);
  });

  it('accepts OTLP/JSON and answers JSON', async () => {
    const res = await post('/otlp/v1/traces', json, { 'content-type': 'application/json; charset=utf-8' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({});
    expect(consumer.appended.map(receivedFields)).toEqual(spans.map(expectedFields));
    expect(consumer.wireBytes).toEqual([json.length]);
  });

  it('strips leading /api segments; other paths are 404', async () => {
    expect((await post('/api/api/otlp/v1/traces', proto, PROTO)).status).toBe(200);
    expect((await post('/api/v1/traces?x=1', proto, PROTO)).status).toBe(200);
    expect((await post('/apis/v1/traces', proto, PROTO)).status).toBe(404);
    expect((await post('/v1/logs', proto, PROTO)).status).toBe(404);
  });

  it('GET /otlp/v1/traces is the ready check; other methods are 405', async () => {
    const ready = await fetch(base + '/api/otlp/v1/traces');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
    expect((await fetch(base + '/v1/traces')).status).toBe(405);
    const put = await fetch(base + '/otlp/v1/traces', { method: 'PUT', body: 'x' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST');
  });

  it('more spans than max_spans_per_request: 413 RESOURCE_EXHAUSTED, protobuf and JSON, nothing consumed', async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: (i + 1).toString(16).padStart(16, '0'), name: 'n', kind: 1,
      startNs: 1n, endNs: 2n, status: { code: 0 }, attributes: new AttributeList(),
    }));
    const over = await post('/v1/traces', requestEncoder.encode(many(MAX_SPANS + 1)), PROTO);
    expect(over.status).toBe(413);
    expect(decodeStatus(new Uint8Array(await over.arrayBuffer()))).toEqual({
      code: 8, message: `the request holds more than max_spans_per_request (${MAX_SPANS}) spans`,
    });
    // OTLP/JSON: the SDK's serializer, spans split over two scopes by their instrumentation.
    const jsonSpans = await sdkSpans(MAX_SPANS + 1);
    const overJson = await post('/v1/traces', JsonTraceSerializer.serializeRequest(jsonSpans)!, { 'content-type': 'application/json' });
    expect(overJson.status).toBe(413);
    expect(await overJson.json()).toMatchObject({ code: 8, message: `the request holds more than max_spans_per_request (${MAX_SPANS}) spans` });
    expect(consumer.consumed).toBe(0);
    expect((await post('/v1/traces', requestEncoder.encode(many(MAX_SPANS)), PROTO)).status).toBe(200);
    expect(consumer.appended).toHaveLength(MAX_SPANS);
  });

  it('415 for other content types, 400 for an unknown Content-Encoding', async () => {
    expect((await post('/v1/traces', proto, { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post('/v1/traces', proto, {})).status).toBe(415);
    const br = await post('/v1/traces', proto, { ...PROTO, 'content-encoding': 'br' });
    expect(br.status).toBe(400);
    expect(decodeStatus(new Uint8Array(await br.arrayBuffer())).message).toMatch(/Content-Encoding/);
    expect(consumer.consumed).toBe(0);
  });

  it('gzip, deflate (zlib and raw) and zstd bodies are accepted', async () => {
    const bodies: Array<[string, Uint8Array]> = [
      ['gzip', gzipSync(proto)], ['deflate', deflateSync(proto)], ['deflate', deflateRawSync(proto)],
      ['zstd', zstdCompressSync(proto)],
    ];
    for (const [encoding, body] of bodies) {
      const res = await post('/v1/traces', body, { ...PROTO, 'content-encoding': encoding });
      expect(res.status, encoding).toBe(200);
    }
    expect(consumer.appended).toHaveLength(spans.length * bodies.length);
    // The decompressed size, not what travelled.
    expect(consumer.wireBytes).toEqual(bodies.map(() => proto.length));
  });

  it('413 over the body limit, raw or decompressed; 400 for corrupt compressed data', async () => {
    const big = new Uint8Array(LIMIT + 1);
    expect((await post('/v1/traces', big, PROTO)).status).toBe(413);
    const bomb = gzipSync(new Uint8Array(LIMIT * 4));
    expect(bomb.length).toBeLessThan(LIMIT);
    expect((await post('/v1/traces', bomb, { ...PROTO, 'content-encoding': 'gzip' })).status).toBe(413);
    expect((await post('/v1/traces', proto, { ...PROTO, 'content-encoding': 'gzip' })).status).toBe(400);
    expect(consumer.consumed).toBe(0);
  });

  it('an undecodable body is 400 with a google.rpc.Status in the request encoding', async () => {
    const res = await post('/v1/traces', proto.subarray(0, proto.length - 3), PROTO);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    const status = decodeStatus(new Uint8Array(await res.arrayBuffer()));
    expect(status.code).toBe(3);
    expect(status.message).toMatch(/cannot decode/);
    const bad = await post('/v1/traces', '{"resourceSpans": 5}', JSON_CT);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 3, message: expect.stringContaining('resourceSpans') });
  });

  it('some spans rejected: 200 with partial_success naming them; the rest appended', async () => {
    const good = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', name: 'ok', kind: 1, startNs: 1n, endNs: 2n, status: { code: 0 }, attributes: new AttributeList() };
    const badTrace = { ...good, traceId: '00000000000000000000000000000000', spanId: '1111111111111111' };
    const badKind = { ...good, spanId: '2222222222222222', kind: 9 };
    const body = requestEncoder.encode([good, badTrace, badKind]);
    const res = await post('/v1/traces', body, PROTO);
    expect(res.status).toBe(200);
    const partial = decodeExportResponse(new Uint8Array(await res.arrayBuffer()));
    expect(partial?.rejectedSpans).toBe(2);
    expect(partial?.errorMessage).toBe(
      '00000000000000000000000000000000/1111111111111111: invalid trace_id; 4bf92f3577b34da6a3ce929d0e0e4736/2222222222222222: invalid span_kind');
    expect(consumer.appended.map((s) => s.spanId)).toEqual(['00f067aa0ba902b7']);
    // The share of the body the one accepted span stands for.
    expect(consumer.wireBytes).toEqual([Math.ceil(body.length / 3)]);
  });

  it('every span rejected: 400 listing the reasons, nothing appended', async () => {
    const body = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'abc', spanId: '00f067aa0ba902b7', startTimeUnixNano: '1', endTimeUnixNano: '2' }] }] }] });
    const res = await post('/v1/traces', body, JSON_CT);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 3, message: 'every span was rejected: abc/00f067aa0ba902b7: invalid trace_id' });
    expect(consumer.appended).toHaveLength(0);
  });

  it('zero spans: 200 with an empty response, processors and stream untouched', async () => {
    const res = await post('/v1/traces', new Uint8Array(0), PROTO);
    expect(res.status).toBe(200);
    expect(consumer.consumed).toBe(0);
    expect(await (await post('/v1/traces', '{}', JSON_CT)).json()).toEqual({});
  });

  it('refused before decoding (memory limit): 503 + Retry-After, nothing prepared', async () => {
    consumer.admitRefusal = { message: 'over memory_limit_mib', retryAfterMs: 1500 };
    const res = await post('/v1/traces', proto, PROTO);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(decodeStatus(new Uint8Array(await res.arrayBuffer()))).toEqual({ code: 14, message: 'over memory_limit_mib' });
    expect(consumer.consumed).toBe(0);
  });

  it('refused by the stream: 503 or 429 + Retry-After, nothing appended', async () => {
    consumer.refuse(503, 2500);
    const a = await post('/v1/traces', json, JSON_CT);
    expect(a.status).toBe(503);
    expect(a.headers.get('retry-after')).toBe('3');
    consumer.refuse(429, 10);
    const b = await post('/v1/traces', proto, PROTO);
    expect(b.status).toBe(429);
    expect(b.headers.get('retry-after')).toBe('1');
    expect(decodeStatus(new Uint8Array(await b.arrayBuffer())).code).toBe(8);
    expect(consumer.appended).toHaveLength(0);
  });

  it('a port in use is a StartupError', async () => {
    const port = Number(new URL(base).port);
    const other = new OtlpReceiver({ protocols: { http: { endpoint: `127.0.0.1:${port}` } } }, consumer, silentLogger);
    await expect(other.start()).rejects.toBeInstanceOf(StartupError);
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const grpcPort = (blocker.address() as { port: number }).port;
    const grpc = new OtlpReceiver({ protocols: { grpc: { endpoint: `127.0.0.1:${grpcPort}` } } }, consumer, silentLogger);
    await expect(grpc.start()).rejects.toBeInstanceOf(StartupError);
    blocker.close();
  });
});
