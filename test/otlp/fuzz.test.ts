// 1,000 broken protobuf bodies against the real HTTP receiver: truncated bodies are always 400;
// randomly mutated ones are 400 or, when the mutation still leaves a well-formed message, a normal
// OTLP answer (200, or 400 when validate rejects every span). Never a 5xx, never an escaped exception.
// Then 1,000 OTLP/JSON bodies (truncated, byte-mutated, and well-formed JSON with values of the wrong
// type), and 300 mutated protobuf bodies over gRPC, with the same expectations: every refusal carries a
// message. (The tracing API's 1,000 malformed bodies are test/http/robustness.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { status as grpcStatus } from '@grpc/grpc-js';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { createLogger } from '../../pipeline/log.ts';
import { decodeStatus } from '../../codec/otlp/index.ts';
import { OtlpReceiver } from '../../receivers/otlp/receiver.ts';
import { RecordingConsumer, sdkSpans } from './helpers.ts';
import { pickWith, seededRandom } from '../helpers/random.ts';
import { grpcMessage, rawGrpcCall } from './raw-grpc.ts';

const errors: string[] = [];
const consumer = new RecordingConsumer();
let receiver: OtlpReceiver;
let url: string;
let body: Uint8Array;
let jsonBody: Uint8Array;

beforeAll(async () => {
  const logger = createLogger({ level: 'error', write: (line) => errors.push(line) });
  receiver = new OtlpReceiver({ protocols: { http: { endpoint: '127.0.0.1:0' }, grpc: { endpoint: '127.0.0.1:0' } } }, consumer, logger);
  await receiver.start();
  url = receiver.endpoints()[0] + '/v1/traces';
  const spans = await sdkSpans(10);
  body = ProtobufTraceSerializer.serializeRequest(spans)!;
  jsonBody = JsonTraceSerializer.serializeRequest(spans)!;
});

afterAll(() => receiver.shutdown());

async function send(bytes: Uint8Array): Promise<number> {
  const res = await fetch(url, { method: 'POST', body: bytes, headers: { 'content-type': 'application/x-protobuf' } });
  const answer = new Uint8Array(await res.arrayBuffer());
  if (res.status === 400) expect(decodeStatus(answer).code).toBe(3);
  return res.status;
}

describe('broken protobuf bodies', () => {
  it('500 truncated bodies: every one is 400 (the request is one ResourceSpans, so any cut breaks a length)', async () => {
    const random = seededRandom(1);
    for (let i = 0; i < 500; i++) {
      const cut = 1 + Math.floor(random() * (body.length - 1));
      expect(await send(body.subarray(0, cut)), `cut at ${cut}`).toBe(400);
    }
    expect(consumer.appended).toHaveLength(0);
  });

  it('500 mutated bodies: 400 or a well-formed answer, never 5xx or an exception', async () => {
    const random = seededRandom(2);
    const counts = new Map<number, number>();
    for (let i = 0; i < 500; i++) {
      const bytes = Uint8Array.from(body);
      const edits = 1 + Math.floor(random() * 4);
      for (let e = 0; e < edits; e++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
      const status = await send(bytes);
      expect([200, 400], `mutation ${i}`).toContain(status);
      counts.set(status, (counts.get(status) ?? 0) + 1);
    }
    // Most random edits break the framing; a few land in string or id bytes and stay decodable.
    expect(counts.get(400) ?? 0).toBeGreaterThan(250);
    expect(errors).toEqual([]);
    // The receiver is still healthy.
    expect(await send(body)).toBe(200);
  });
});

/** POSTs an OTLP/JSON body; a 400 must carry a google.rpc.Status with a message. */
async function sendJson(bytes: Uint8Array): Promise<number> {
  const res = await fetch(url, { method: 'POST', body: bytes, headers: { 'content-type': 'application/json' } });
  const answer = (await res.json()) as { code?: number; message?: string };
  if (res.status === 400) {
    expect(answer.code).toBe(3);
    expect(answer.message).toMatch(/\S/);
  }
  return res.status;
}

const ODD_VALUES: unknown[] = [null, true, 0, -1, 1.5, '', 'x', '\u0000', [], {}, [[]], { a: null }, 'SPAN_KIND_SERVER', '99999999999999999999999', -0];

/** The parsed JSON body with a few members, anywhere in it, replaced by values of another type. */
function wrongTypes(random: () => number): Uint8Array {
  const value = JSON.parse(Buffer.from(jsonBody).toString()) as unknown;
  const members: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach((e, i) => { members.push({ parent: v, key: i }); walk(e); });
    else if (v !== null && typeof v === 'object') {
      for (const [k, e] of Object.entries(v)) { members.push({ parent: v as Record<string, unknown>, key: k }); walk(e); }
    }
  };
  walk(value);
  for (let i = 0, n = 1 + Math.floor(random() * 3); i < n; i++) {
    const { parent, key } = pickWith(random, members);
    (parent as Record<string | number, unknown>)[key] = pickWith(random, ODD_VALUES);
  }
  return Buffer.from(JSON.stringify(value));
}

describe('broken OTLP/JSON bodies', () => {
  it('1,000 truncated, mutated and wrongly typed bodies: 400 with a message or a well-formed answer, never 5xx', async () => {
    const random = seededRandom(3);
    const counts = new Map<number, number>();
    for (let i = 0; i < 1000; i++) {
      let bytes: Uint8Array;
      if (i % 3 === 0) bytes = jsonBody.subarray(0, Math.floor(random() * jsonBody.length));
      else if (i % 3 === 1) {
        bytes = Uint8Array.from(jsonBody);
        for (let e = 0, n = 1 + Math.floor(random() * 4); e < n; e++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
      } else bytes = wrongTypes(random);
      const status = await sendJson(bytes);
      expect([200, 400], `body ${i}: ${Buffer.from(bytes).toString().slice(0, 200)}`).toContain(status);
      counts.set(status, (counts.get(status) ?? 0) + 1);
    }
    expect(counts.get(400) ?? 0).toBeGreaterThan(400);
    expect(counts.get(200) ?? 0).toBeGreaterThan(50);
    expect(errors).toEqual([]);
    expect(await sendJson(jsonBody)).toBe(200);
  });
});

describe('broken protobuf messages over gRPC', () => {
  it('300 mutated messages: INVALID_ARGUMENT with a message or OK, never INTERNAL or a reset', async () => {
    const port = receiver.grpc!.port();
    const random = seededRandom(4);
    for (let i = 0; i < 300; i++) {
      const bytes = Uint8Array.from(body);
      for (let e = 0, n = 1 + Math.floor(random() * 4); e < n; e++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
      const answer = await rawGrpcCall(port, grpcMessage(bytes));
      expect([grpcStatus.OK, grpcStatus.INVALID_ARGUMENT], `message ${i}: ${answer.message}`).toContain(answer.code);
      if (answer.code === grpcStatus.INVALID_ARGUMENT) expect(answer.message).toMatch(/\S/);
    }
    expect(errors).toEqual([]);
  });
});
