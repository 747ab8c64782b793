// Compression bombs and deep nesting. A gzip or zstd body that inflates past max_request_body_size is
// 413 (inflation stops at the limit); one that inflates to millions of empty spans within it is 413 by
// the span count; 100,000 levels of nesting are refused before any parser recurses. After every attack
// a valid request is accepted on every transport, and the peak RSS stays under the limit.
import { gzipSync, zstdCompressSync } from 'node:zlib';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { grpcMessage, rawGrpcCall } from '../otlp/raw-grpc.ts';
import { deepJson, proto, protoDeepKvlist } from './bodies.ts';
import {
  expectGrpcRefused, expectPeakRssWithinLimit, expectRefused, expectServing, JSON_TYPE, post, PROTO, startHostile,
  type Hostile,
} from './hostile-daemon.ts';

let h: Hostile;
/** 256 MiB of zeros, compressed: ~250 KB of gzip, a few KB of zstd. */
let gzipBomb: Buffer;
let zstdBomb: Buffer;
beforeAll(async () => {
  h = await startHostile();
  const zeros = Buffer.alloc(256 * 1024 * 1024);
  gzipBomb = gzipSync(zeros, { level: 9 });
  zstdBomb = zstdCompressSync(zeros);
});
afterAll(async () => {
  expectPeakRssWithinLimit(h);
  await h.stop();
});

const INFLATED = /Decompressed body exceeds max_request_body_size \(20971520 bytes\)/;

describe('compression bombs', () => {
  it.each(['gzip', 'zstd'])('%s: 413 on OTLP/HTTP (protobuf and JSON) and on the tracing API', async (coding) => {
    const body = coding === 'gzip' ? gzipBomb : zstdBomb;
    const headers = { 'content-encoding': coding };
    expectRefused(await post(`${h.otlpBase}/v1/traces`, body, { ...PROTO, ...headers }), 413, INFLATED);
    expectRefused(await post(`${h.otlpBase}/v1/traces`, body, { ...JSON_TYPE, ...headers }), 413, INFLATED);
    expectRefused(await post(`${h.tracingBase}/tracing/spans/ingest`, body, { ...JSON_TYPE, ...headers }), 413, INFLATED);
    await expectServing(h);
  });

  it('gzip message on gRPC: RESOURCE_EXHAUSTED (inflation stops at max_recv_msg_size_mib)', async () => {
    const answer = await rawGrpcCall(h.grpcPort, grpcMessage(gzipBomb, true), { 'grpc-encoding': 'gzip' });
    expectGrpcRefused(answer, status.RESOURCE_EXHAUSTED, /decompresses to a size larger than 20971520/);
    await expectServing(h);
  });

  it('zstd of 9M empty spans (the report\'s 1.7 KB body): 413 by the span count, no span built', async () => {
    const body = zstdCompressSync(proto.emptySpans(9_000_000));
    expectRefused(await post(`${h.otlpBase}/v1/traces`, body, { ...PROTO, 'content-encoding': 'zstd' }), 413, /max_spans_per_request/);
    const grpc = await rawGrpcCall(h.grpcPort, grpcMessage(gzipSync(proto.emptySpans(9_000_000)), true), { 'grpc-encoding': 'gzip' });
    expectGrpcRefused(grpc, status.RESOURCE_EXHAUSTED, /max_spans_per_request/);
    await expectServing(h);
  });
});

describe('100,000 levels of nesting', () => {
  it('tracing API: 413 naming max_nesting_depth', async () => {
    const body = deepJson(100_000, '{"spans":', '}');
    expectRefused(await post(`${h.tracingBase}/tracing/spans/ingest`, body, JSON_TYPE), 413, /max_nesting_depth \(64\)/);
    expectRefused(await post(`${h.tracingBase}/tracing/spans/ingest`, gzipSync(body), { ...JSON_TYPE, 'content-encoding': 'gzip' }), 413, /max_nesting_depth/);
    await expectServing(h);
  });

  it('OTLP/JSON: 400, refused before JSON.parse', async () => {
    expectRefused(await post(`${h.otlpBase}/v1/traces`, deepJson(100_000), JSON_TYPE), 400, /JSON nesting is deeper than the OTLP\/JSON limit/);
    await expectServing(h);
  });

  it('protobuf kvlists on OTLP/HTTP and gRPC: 400 / INVALID_ARGUMENT at depth 64', async () => {
    const body = protoDeepKvlist(100_000);
    expectRefused(await post(`${h.otlpBase}/v1/traces`, body, PROTO), 400, /values nested deeper than 64/);
    expectGrpcRefused(await rawGrpcCall(h.grpcPort, grpcMessage(body)), status.INVALID_ARGUMENT, /values nested deeper than 64/);
    await expectServing(h);
  });
});
