// TLS on every receiver, with certificates made by openssl for the test: the tracing API over HTTPS,
// OTLP/HTTP with mutual TLS, OTLP/gRPC over TLS, a renewed certificate served without a restart, and
// unreadable files reported by `validate`.
import { copyFileSync } from 'node:fs';
import { request, type RequestOptions } from 'node:https';
import { request as plainRequest } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { Client, credentials, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportRequestEncoder } from '../../codec/otlp/index.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { factory as httpFactory } from '../../receivers/http/factory.ts';
import { EXPORT_PATH } from '../../receivers/otlp/grpc-server.ts';
import { OtlpReceiver } from '../../receivers/otlp/receiver.ts';
import { factory as otlpFactory } from '../../receivers/otlp/factory.ts';
import { makeCerts, type TestCerts } from '../helpers/certs.ts';
import { RecordingConsumer } from '../otlp/helpers.ts';
import { flatSpan, startReceiver, type Running } from './harness.ts';
import { AttributeList } from '../../model/attributes/list.ts';

let certs: TestCerts;
beforeAll(() => {
  certs = makeCerts();
});

interface TlsResult {
  status: number;
  text: string;
  /** Serial number of the certificate the server presented. */
  serial: string;
}

/** One HTTPS request on a fresh connection (so each sees the server's current certificate). */
function httpsPost(port: number, path: string, body: string | Uint8Array, headers: Record<string, string>, tls: RequestOptions): Promise<TlsResult> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers, agent: false, ...tls }, (res) => {
      const serial = (res.socket as TLSSocket).getPeerCertificate().serialNumber;
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, serial }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const body = JSON.stringify({ spans: [flatSpan(0)] });
const JSON_HEADERS = { 'content-type': 'application/json' };

describe('tls on the tracing API', () => {
  let r: Running;
  let server: ReturnType<TestCerts['issue']>;
  beforeAll(async () => {
    server = certs.issue('server-a', 'server');
    // The receiver reads the files it is given; the test renews them in place below.
    copyFileSync(server.certFile, `${certs.dir}/live.pem`);
    copyFileSync(server.keyFile, `${certs.dir}/live.key`);
    r = await startReceiver({ tls: { cert_file: `${certs.dir}/live.pem`, key_file: `${certs.dir}/live.key`, min_version: '1.2', reload_interval: 100 } });
  });
  afterAll(() => r.close());

  it('serves HTTPS: 202 to a client that trusts the CA; a plain HTTP request gets no answer', async () => {
    expect(r.receiver.endpoints()[0]).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const res = await httpsPost(r.port, '/tracing/spans/ingest', body, JSON_HEADERS, { ca: certs.ca });
    expect(res.status).toBe(202);
    await expect(httpsPost(r.port, '/tracing/spans/ingest', body, JSON_HEADERS, {})).rejects.toThrow(/self-signed|unable to verify|self signed/i);
    const plain = await new Promise<number | string>((resolve) => {
      const req = plainRequest({ host: '127.0.0.1', port: r.port, path: '/tracing/spans/ingest', method: 'POST', headers: JSON_HEADERS }, (res) => resolve(res.statusCode ?? 0));
      req.on('error', (e) => resolve((e as NodeJS.ErrnoException).code ?? 'error'));
      req.end(body);
    });
    expect(plain).not.toBe(202);
  });

  it('serves a renewed certificate without a restart', async () => {
    const before = await httpsPost(r.port, '/tracing/spans/ingest', body, JSON_HEADERS, { ca: certs.ca });
    const renewed = certs.issue('server-b', 'server');
    copyFileSync(renewed.keyFile, `${certs.dir}/live.key`);
    copyFileSync(renewed.certFile, `${certs.dir}/live.pem`);
    let after = before;
    for (let i = 0; i < 100 && after.serial === before.serial; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await httpsPost(r.port, '/tracing/spans/ingest', body, JSON_HEADERS, { ca: certs.ca });
    }
    expect(after.status).toBe(202);
    expect(after.serial).not.toBe(before.serial);
  });
});

describe('mutual tls on OTLP/HTTP, tls on OTLP/gRPC', () => {
  const consumer = new RecordingConsumer();
  let receiver: OtlpReceiver;
  let client: ReturnType<TestCerts['issue']>;
  const otlpBody = new ExportRequestEncoder().encode([{
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', name: 'n', kind: 1, startNs: 1n, endNs: 2n,
    status: { code: 0 }, attributes: new AttributeList(),
  }]);
  beforeAll(async () => {
    const server = certs.issue('otlp-server', 'server');
    client = certs.issue('client', 'client');
    const tls = { cert_file: server.certFile, key_file: server.keyFile, min_version: '1.2' as const, reload_interval: 60_000 };
    receiver = new OtlpReceiver({
      protocols: {
        http: { endpoint: '127.0.0.1:0', tls: { ...tls, client_ca_file: certs.caFile } },
        grpc: { endpoint: '127.0.0.1:0', tls },
      },
    }, consumer, silentLogger);
    await receiver.start();
  });
  afterAll(() => receiver.shutdown());

  it('OTLP/HTTP takes a client with a certificate from the CA and refuses one without', async () => {
    const port = Number(new URL(receiver.http!.endpoint()!).port);
    const proto = { 'content-type': 'application/x-protobuf' };
    const ok = await httpsPost(port, '/v1/traces', otlpBody, proto, { ca: certs.ca, cert: client.cert, key: client.key });
    expect(ok.status).toBe(200);
    await expect(httpsPost(port, '/v1/traces', otlpBody, proto, { ca: certs.ca })).rejects.toThrow();
  });

  it('OTLP/gRPC over TLS: OK for a client that trusts the CA, UNAVAILABLE over plaintext', async () => {
    const call = (creds: ReturnType<typeof credentials.createSsl>) => new Promise<number>((resolve) => {
      const c = new Client(`127.0.0.1:${receiver.grpc!.port()}`, creds);
      c.makeUnaryRequest(EXPORT_PATH, (b: Uint8Array) => Buffer.from(b), (b: Buffer) => b, otlpBody, { deadline: Date.now() + 5000 }, (error) => {
        c.close();
        resolve(error?.code ?? status.OK);
      });
    });
    expect(await call(credentials.createSsl(certs.ca))).toBe(status.OK);
    expect(await call(credentials.createInsecure())).not.toBe(status.OK);
  });
});

describe('validate checks the tls files', () => {
  it('reports a file that cannot be read, at its key', () => {
    const tls = { cert_file: '/nonexistent/cert.pem', key_file: certs.caFile, min_version: '1.2' as const, reload_interval: 60_000 };
    expect(httpFactory.check!({ tls } as never)).toEqual([{ key: 'tls.cert_file', message: 'cannot read /nonexistent/cert.pem: ENOENT' }]);
    expect(otlpFactory.check!({ protocols: { grpc: { tls } } } as never)).toEqual([
      { key: 'protocols.grpc.tls.cert_file', message: 'cannot read /nonexistent/cert.pem: ENOENT' },
    ]);
  });
});
