// The api_keys extension on every receiver and transport, over real loopback HTTP and gRPC: no key,
// a wrong key, a right key (ApiKey, Bearer, Basic with the key as password, a key given by its digest),
// and a key revoked by editing the keys file while running. A refused request appends nothing.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, credentials, Metadata, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportRequestEncoder } from '../../codec/otlp/index.ts';
import { ApiKeysAuthenticator } from '../../extensions/api_keys/api-keys.ts';
import { factory as apiKeysFactory } from '../../extensions/api_keys/factory.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { EXPORT_PATH } from '../../receivers/otlp/grpc-server.ts';
import { OtlpReceiver } from '../../receivers/otlp/receiver.ts';
import { RecordingConsumer } from '../otlp/helpers.ts';
import { flatSpan, recordingConsumer, send, startReceiver, type Running } from './harness.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import { jsonLines } from '../helpers/json-lines.ts';
import { httpDefaults } from '../helpers/http-receiver-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'tracehop-keys-'));
const keysFile = join(dir, 'keys.yaml');
const sha256 = (k: string) => createHash('sha256').update(k).digest('hex');

let auth: ApiKeysAuthenticator;
beforeAll(async () => {
  writeFileSync(keysFile, '- {key: file-key, project: proj-f}\n');
  auth = new ApiKeysAuthenticator({
    keys: [{ key: 'inline-key', project: 'proj-a' }, { key_sha256: sha256('digest-key'), project: 'proj-b' }],
    file: keysFile,
    reload_interval: 50,
  }, silentLogger);
  await auth.start();
});
afterAll(() => auth.shutdown());

const basic = (user: string, key: string) => 'Basic ' + Buffer.from(`${user}:${key}`).toString('base64');
const body = JSON.stringify({ spans: [flatSpan(0)] });
const JSON_HEADERS = { 'content-type': 'application/json' };

describe('api_keys on the tracing API', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startReceiver({ auth: { authenticator: 'api_keys' } }, recordingConsumer(), () => auth);
  });
  afterAll(() => r.close());

  it('no key or a wrong one: 401 with WWW-Authenticate, nothing appended', async () => {
    for (const authorization of [undefined, 'ApiKey wrong', 'Bearer', 'Basic !!!', basic('pk', 'wrong')]) {
      const res = await send(r.port, 'POST', '/tracing/spans/ingest', body, { ...JSON_HEADERS, ...(authorization ? { authorization } : {}) });
      expect(res.status, String(authorization)).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/ApiKey.*Bearer.*Basic/);
    }
    expect(r.consumer.spans()).toHaveLength(0);
  });

  it('every span gets the project of the accepted key; a member or attribute the client sends cannot set it', async () => {
    r.consumer.appended.length = 0;
    const forged = JSON.stringify({ spans: [flatSpan(0, { project: 'proj-x', attributes: { project: 'proj-x' } })] });
    expect((await send(r.port, 'POST', '/tracing/spans/ingest', forged, { ...JSON_HEADERS, authorization: 'ApiKey inline-key' })).status).toBe(202);
    expect((await send(r.port, 'POST', '/tracing/spans/ingest', body, { ...JSON_HEADERS, authorization: 'Bearer digest-key' })).status).toBe(202);
    expect(r.consumer.spans().map((s) => s.project)).toEqual(['proj-a', 'proj-b']);
    // The record carries it as a member of its own.
    const record = JSON.parse(jsonLines(r.consumer.spans().slice(0, 1)).trim());
    expect(record.project).toBe('proj-a');
    expect(record.attributes.project).toBe('proj-x');
  });

  it('a right key, however it is sent: 202', async () => {
    for (const authorization of ['ApiKey inline-key', 'bearer inline-key', 'Bearer digest-key', basic('pk-lf-1', 'file-key'), 'APIKEY file-key']) {
      const res = await send(r.port, 'POST', '/tracing/spans/ingest', body, { ...JSON_HEADERS, authorization });
      expect(res.status, authorization).toBe(202);
    }
  });
});

describe('api_keys on OTLP/HTTP and OTLP/gRPC, and revocation through the keys file', () => {
  const consumer = new RecordingConsumer();
  let receiver: OtlpReceiver;
  let client: Client;
  const otlpBody = new ExportRequestEncoder().encode([{
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', name: 'n', kind: 1, startNs: 1n, endNs: 2n,
    status: { code: 0 }, attributes: new AttributeList(),
  }]);
  beforeAll(async () => {
    receiver = new OtlpReceiver({
      protocols: {
        http: { endpoint: '127.0.0.1:0', auth: { authenticator: 'api_keys' } },
        grpc: { endpoint: '127.0.0.1:0', auth: { authenticator: 'api_keys' } },
      },
    }, consumer, silentLogger, () => auth);
    await receiver.start();
    client = new Client(`127.0.0.1:${receiver.grpc!.port()}`, credentials.createInsecure());
  });
  afterAll(async () => {
    client.close();
    await receiver.shutdown();
  });

  const postOtlp = (authorization?: string) => fetch(`${receiver.http!.endpoint()}/v1/traces`, {
    method: 'POST', body: otlpBody, headers: { 'content-type': 'application/x-protobuf', ...(authorization ? { authorization } : {}) },
  });
  const callGrpc = (authorization?: string) => new Promise<number>((resolve) => {
    const metadata = new Metadata();
    if (authorization) metadata.set('authorization', authorization);
    client.makeUnaryRequest(EXPORT_PATH, (b: Uint8Array) => Buffer.from(b), (b: Buffer) => b, otlpBody, metadata, (error) => resolve(error?.code ?? status.OK));
  });

  it('OTLP/HTTP: 401 UNAUTHENTICATED without a valid key, 200 with one', async () => {
    const refused = await postOtlp('Bearer nope');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/Bearer/);
    expect((await postOtlp()).status).toBe(401);
    expect(consumer.consumed).toBe(0);
    expect((await postOtlp('Bearer inline-key')).status).toBe(200);
  });

  it('OTLP/gRPC: UNAUTHENTICATED without a valid key in the authorization metadata, OK with one', async () => {
    expect(await callGrpc()).toBe(status.UNAUTHENTICATED);
    expect(await callGrpc('Bearer nope')).toBe(status.UNAUTHENTICATED);
    consumer.appended.length = 0;
    expect(await callGrpc('Bearer digest-key')).toBe(status.OK);
    expect((await postOtlp('Bearer inline-key')).status).toBe(200);
    expect(consumer.appended.map((s) => s.project)).toEqual(['proj-b', 'proj-a']);
  });

  it('a key removed from the keys file is refused without a restart', async () => {
    expect(await callGrpc('ApiKey file-key')).toBe(status.OK);
    writeFileSync(keysFile, '- {key: other-key}\n');
    let code = status.OK;
    for (let i = 0; i < 100 && code === status.OK; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      code = await callGrpc('ApiKey file-key');
    }
    expect(code).toBe(status.UNAUTHENTICATED);
    expect(await callGrpc('ApiKey other-key')).toBe(status.OK);
    expect(await callGrpc('ApiKey inline-key')).toBe(status.OK);
  });
});

describe('api_keys settings', () => {
  it('needs keys or a file, and exactly one of key and key_sha256 per entry', () => {
    expect(apiKeysFactory.check!({ keys: [], reload_interval: 1000 })).toEqual([{ key: 'keys', message: 'list at least one key, or a file' }]);
    expect(apiKeysFactory.check!({ keys: [{ key: 'a', key_sha256: sha256('a') }, { project: 'p' }], reload_interval: 1000 })).toEqual([
      { key: 'keys.0', message: 'give exactly one of key and key_sha256' },
      { key: 'keys.1', message: 'give exactly one of key and key_sha256' },
    ]);
  });
});

describe('a receiver other machines can reach, without authentication', () => {
  it('logs a warning at start; loopback or authenticated listeners do not', async () => {
    const { createLogger } = await import('../../pipeline/log.ts');
    const { factory: httpFactory } = await import('../../receivers/http/factory.ts');
    const lines: string[] = [];
    const logger = createLogger({ write: (line) => lines.push(line) });
    const consumer = recordingConsumer();
    const make = (endpoint: string, extra: Record<string, unknown> = {}) =>
      httpFactory.create({ ...httpDefaults, endpoint, ...extra }, { id: 'http', logger, consumer, authenticator: () => auth });
    make('0.0.0.0:0');
    expect(lines.filter((l) => l.includes('without authentication'))).toHaveLength(1);
    make('127.0.0.1:0');
    make('[::1]:0');
    make('0.0.0.0:0', { auth: { authenticator: 'api_keys' } });
    make(':0', { api_keys: ['k'] });
    expect(lines.filter((l) => l.includes('without authentication'))).toHaveLength(1);
    new OtlpReceiver({ protocols: { http: { endpoint: ':0' } } }, new RecordingConsumer(), logger);
    expect(lines.filter((l) => l.includes('otlp receiver (http) listens on :0'))).toHaveLength(1);
  });
});
