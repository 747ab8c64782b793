// The http receiver's /otlp/v1/traces route runs the shared OTLP/HTTP handler: same codec, same answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { silentLogger } from '../../pipeline/log.ts';
import { decodeStatus } from '../../codec/otlp/index.ts';
import { httpDefaults } from '../helpers/http-receiver-config.ts';
import { HttpReceiver } from '../../receivers/http/receiver.ts';
import { expectedFields, receivedFields, RecordingConsumer, sdkSpans } from './helpers.ts';

let receiver: HttpReceiver;
let base: string;
const consumer = new RecordingConsumer();

beforeAll(async () => {
  receiver = new HttpReceiver({ ...httpDefaults, endpoint: '127.0.0.1:0' }, { id: 'http', consumer, logger: silentLogger });
  await receiver.start();
  base = receiver.endpoints()[0];
});
afterAll(() => receiver.shutdown());

describe('http receiver /otlp/v1/traces', () => {
  it('accepts OTLP protobuf under /api/otlp/v1/traces and appends every span', async () => {
    const spans = await sdkSpans(1);
    const res = await fetch(base + '/api/otlp/v1/traces', {
      method: 'POST', body: ProtobufTraceSerializer.serializeRequest(spans)!, headers: { 'content-type': 'application/x-protobuf' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    expect(consumer.appended.map(receivedFields)).toEqual(spans.map(expectedFields));
  });

  it('answers the ready check, and OTLP status codes (not the tracing API ones) for bad input', async () => {
    expect(await (await fetch(base + '/otlp/v1/traces')).json()).toEqual({ status: 'ready' });
    const bad = await fetch(base + '/otlp/v1/traces', {
      method: 'POST', body: new Uint8Array([0x0a, 0x05]), headers: { 'content-type': 'application/x-protobuf' },
    });
    expect(bad.status).toBe(400);
    expect(decodeStatus(new Uint8Array(await bad.arrayBuffer())).code).toBe(3);
    const enc = await fetch(base + '/otlp/v1/traces', {
      method: 'POST', body: 'x', headers: { 'content-type': 'application/json', 'content-encoding': 'br' },
    });
    expect(enc.status).toBe(400);
  });
});
