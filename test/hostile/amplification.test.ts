// Amplification: bodies of a few bytes per element (empty spans, empty attributes, kvlists and arrays
// of empty entries), each of which would become an object of a hundred bytes or more. Over the span
// limit or max_values_per_request they are refused before the objects exist (413 / RESOURCE_EXHAUSTED
// with the limit named); within the limits they cost time and memory in proportion to their size. After
// every attack a valid request is accepted on every transport, and the daemon's peak RSS stays under
// memory_limit_mib + 256 MiB.
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcMessage, rawGrpcCall } from '../otlp/raw-grpc.ts';
import { json, proto, tracing } from './bodies.ts';
import {
  expectGrpcRefused, expectPeakRssWithinLimit, expectRefused, expectServing, JSON_TYPE, post, PROTO, startHostile,
  type Hostile,
} from './hostile-daemon.ts';

const SPANS = /max_spans_per_request \(100000\)/;
const VALUES = /max_values_per_request \(500000\)/;

let h: Hostile;
beforeAll(async () => {
  h = await startHostile();
});
afterAll(async () => {
  expectPeakRssWithinLimit(h);
  await h.stop();
});

/** Protobuf bodies over a limit, with the limit their refusal names. */
const protoAttacks: Array<[string, () => Buffer, RegExp]> = [
  ['1M empty spans', () => proto.emptySpans(1_000_000), SPANS],
  ['1M empty attributes', () => proto.emptyAttributes(1_000_000), VALUES],
  ['a kvlist of 1M empty entries', () => proto.wideKvlist(1_000_000), VALUES],
  ['an array of 1M empty kvlists', () => proto.arrayOfEmptyKvlists(1_000_000), VALUES],
];

const jsonAttacks: Array<[string, () => Buffer, RegExp]> = [
  // Each empty span is an object: over both limits, the count of objects and arrays on the bytes refuses first.
  ['1M empty spans', () => json.emptySpans(1_000_000), VALUES],
  ['200k empty spans (within max_values_per_request)', () => json.emptySpans(200_000), SPANS],
  ['1M empty attributes', () => json.emptyAttributes(1_000_000), VALUES],
  ['a kvlist of 1M empty entries', () => json.wideKvlist(1_000_000), VALUES],
  ['an array of 300k empty kvlists', () => json.arrayOfEmptyKvlists(300_000), VALUES],
];

describe('amplification bodies', () => {
  it.each(protoAttacks)('OTLP/HTTP protobuf, %s: 413 naming the limit', async (_name, body, limit) => {
    expectRefused(await post(`${h.otlpBase}/v1/traces`, body(), PROTO), 413, limit);
    await expectServing(h);
  });

  it.each(protoAttacks)('OTLP/gRPC, %s: RESOURCE_EXHAUSTED naming the limit', async (_name, body, limit) => {
    expectGrpcRefused(await rawGrpcCall(h.grpcPort, grpcMessage(body())), status.RESOURCE_EXHAUSTED, limit);
    await expectServing(h);
  });

  it.each(jsonAttacks)('OTLP/JSON, %s: 413 naming the limit, before JSON.parse', async (_name, body, limit) => {
    expectRefused(await post(`${h.otlpBase}/v1/traces`, body(), JSON_TYPE), 413, limit);
    await expectServing(h);
  });

  it('tracing API, 1M empty spans and 1M empty attribute objects: 413 naming the limit', async () => {
    for (const body of [tracing.emptySpans(1_000_000), tracing.emptyAttributes(1_000_000)]) {
      expectRefused(await post(`${h.tracingBase}/tracing/spans/ingest`, body, JSON_TYPE), 413, VALUES);
      await expectServing(h);
    }
  });

  it('10M empty scopes (no span in any): accepted as an empty request', async () => {
    expect((await post(`${h.otlpBase}/v1/traces`, proto.emptyScopes(10_000_000), PROTO)).status).toBe(200);
    await expectServing(h);
  });

  it('the most an accepted body can ask for (an array of empty kvlists just under the limit) stays within memory', async () => {
    const answer = await post(`${h.otlpBase}/v1/traces`, proto.arrayOfEmptyKvlists(499_000), PROTO);
    expect(answer.status).toBe(200);
    await expectServing(h);
    expectPeakRssWithinLimit(h);
  });
});
