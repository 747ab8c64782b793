// 1,000 broken protobuf bodies against the real HTTP receiver: truncated bodies are always 400;
// randomly mutated ones are 400 or, when the mutation still leaves a well-formed message, a normal
// OTLP answer (200, or 400 when validate rejects every span). Never a 5xx, never an escaped exception.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { createLogger } from '../../pipeline/log.ts';
import { decodeStatus } from '../../codec/otlp/index.ts';
import { OtlpReceiver } from '../../receivers/otlp/receiver.ts';
import { RecordingConsumer, sdkSpans } from './helpers.ts';
import { seededRandom } from '../helpers/random.ts';

const errors: string[] = [];
const consumer = new RecordingConsumer();
let receiver: OtlpReceiver;
let url: string;
let body: Uint8Array;

beforeAll(async () => {
  const logger = createLogger({ level: 'error', write: (line) => errors.push(line) });
  receiver = new OtlpReceiver({ protocols: { http: { endpoint: '127.0.0.1:0' } } }, consumer, logger);
  await receiver.start();
  url = receiver.endpoints()[0] + '/v1/traces';
  body = ProtobufTraceSerializer.serializeRequest(await sdkSpans(10))!;
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
