// Cross-origin requests from browsers (the `cors` setting) on both HTTP receivers, over real loopback
// HTTP: a preflight from an allowed origin gets the allow headers, one from another origin gets none;
// an actual request from an allowed origin gets Access-Control-Allow-Origin with its answer; with no
// `cors` setting nothing changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../pipeline/log.ts';
import { OtlpReceiver } from '../../receivers/otlp/receiver.ts';
import { RecordingConsumer } from '../otlp/helpers.ts';
import { flatSpan, send, startReceiver, type Running } from './harness.ts';

const cors = { allowed_origins: ['https://app.example.com', 'https://*.agenta.test'], allowed_headers: ['X-Custom'], max_age: 600 };

function preflight(port: number, path: string, origin: string, method = 'POST', headers = 'content-type') {
  return send(port, 'OPTIONS', path, undefined, {
    origin, 'access-control-request-method': method, 'access-control-request-headers': headers,
  });
}

describe('cors on the tracing API', () => {
  let r: Running;
  let plain: Running;
  beforeAll(async () => {
    r = await startReceiver({ cors, api_keys: ['k1'] });
    plain = await startReceiver();
  });
  afterAll(async () => {
    await r.close();
    await plain.close();
  });

  it('a preflight from an allowed origin: 204 with the allow headers, before authentication', async () => {
    const res = await preflight(r.port, '/tracing/spans/ingest', 'https://app.example.com', 'POST', 'Content-Type, Authorization, X-Custom');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(res.headers['access-control-allow-methods']).toBe('POST');
    expect(res.headers['access-control-allow-headers']).toBe('content-type, authorization, x-custom');
    expect(res.headers['access-control-max-age']).toBe('600');
    const wildcard = await preflight(r.port, '/api/otlp/v1/traces', 'https://eu.agenta.test');
    expect(wildcard.headers['access-control-allow-origin']).toBe('https://eu.agenta.test');
  });

  it('a preflight from another origin, for another method or header: 204 without allow headers', async () => {
    for (const res of [
      await preflight(r.port, '/tracing/spans/ingest', 'https://evil.example.com'),
      await preflight(r.port, '/tracing/spans/ingest', 'https://agenta.test'),
      await preflight(r.port, '/tracing/spans/ingest', 'https://app.example.com', 'DELETE'),
      await preflight(r.port, '/tracing/spans/ingest', 'https://app.example.com', 'POST', 'x-other'),
    ]) {
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('an actual request from an allowed origin gets Access-Control-Allow-Origin with its answer, refusals included', async () => {
    const body = JSON.stringify({ spans: [flatSpan(0)] });
    const ok = await send(r.port, 'POST', '/tracing/spans/ingest', body, {
      'content-type': 'application/json', authorization: 'ApiKey k1', origin: 'https://app.example.com',
    });
    expect(ok.status).toBe(202);
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(ok.headers.vary).toBe('Origin');
    const refused = await send(r.port, 'POST', '/tracing/spans/ingest', body, { 'content-type': 'application/json', origin: 'https://app.example.com' });
    expect(refused.status).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe('https://app.example.com');
    const other = await send(r.port, 'POST', '/tracing/spans/ingest', body, {
      'content-type': 'application/json', authorization: 'ApiKey k1', origin: 'https://evil.example.com',
    });
    expect(other.status).toBe(202);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('without a cors setting, OPTIONS is not allowed and no CORS header is added', async () => {
    const res = await preflight(plain.port, '/tracing/spans/ingest', 'https://app.example.com');
    expect(res.status).toBe(405);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('cors on OTLP/HTTP', () => {
  const consumer = new RecordingConsumer();
  let receiver: OtlpReceiver;
  let port: number;
  beforeAll(async () => {
    receiver = new OtlpReceiver({ protocols: { http: { endpoint: '127.0.0.1:0', cors: { allowed_origins: ['*'], allowed_headers: [], max_age: 0 } } } }, consumer, silentLogger);
    await receiver.start();
    port = Number(new URL(receiver.endpoints()[0]).port);
  });
  afterAll(() => receiver.shutdown());

  it('`*` allows every origin: the preflight and the export answer carry Access-Control-Allow-Origin: *', async () => {
    const res = await preflight(port, '/v1/traces', 'http://localhost:5173');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-max-age']).toBeUndefined();
    const exported = await send(port, 'POST', '/v1/traces', '{}', { 'content-type': 'application/json', origin: 'http://localhost:5173' });
    expect(exported.status).toBe(200);
    expect(exported.headers['access-control-allow-origin']).toBe('*');
  });
});
