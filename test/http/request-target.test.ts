// Raw requests the HTTP clients in the other tests cannot send: odd request targets, a missing Host,
// HEAD. Both receivers answer 400 to a target that makes no URL, and a HEAD answer carries the headers
// of the GET-less answer without Content-Length.
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../pipeline/log.ts';
import { factory as otlpFactory } from '../../receivers/otlp/factory.ts';
import { flatSpan, recordingConsumer, startReceiver, type Running } from './harness.ts';

let http: Running;
let otlpPort: number;
let stopOtlp: () => Promise<void>;
beforeAll(async () => {
  http = await startReceiver({ max_request_body_size: 4096 });
  const otlp = otlpFactory.create({ protocols: { http: { endpoint: '127.0.0.1:0' } } }, { id: 'otlp', logger: silentLogger, consumer: recordingConsumer() });
  await otlp.start();
  otlpPort = Number(new URL(otlp.endpoints()[0]).port);
  stopOtlp = () => otlp.shutdown();
});
afterAll(async () => {
  await http.close();
  await stopOtlp();
});

/** Everything the server sends on one connection for `text`, until it closes (Connection: close). */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    socket.on('data', (d) => (out += d));
    socket.on('error', reject);
    socket.on('close', () => resolve(out));
  });
}

/** Status line, lowercase header lines without Date (sorted), body. */
function answer(text: string): { status: string; headers: string[]; body: string } {
  const [head, body] = text.split('\r\n\r\n');
  const [status, ...lines] = head.split('\r\n');
  return { status, headers: lines.filter((l) => !/^date:/i.test(l)).map((l) => l.toLowerCase()).sort(), body };
}

function request(method: string, target: string, host: string | undefined, body = '', version = '1.1'): string {
  const hostLine = host === undefined ? '' : `Host: ${host}\r\n`;
  return `${method} ${target} HTTP/${version}\r\n${hostLine}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
}

const TRACING_400 = {
  status: 'HTTP/1.1 400 Bad Request',
  headers: ['connection: close', 'content-length: 24', 'content-type: application/json; charset=utf-8'],
  body: '{"detail":"Bad Request"}',
};
const OTLP_400 = { status: 'HTTP/1.1 400 Bad Request', headers: ['connection: close', 'transfer-encoding: chunked'], body: '0' };

const ODD = [
  ['POST', '*', 'x'], ['OPTIONS', '*', 'x'], ['POST', '/a\\b', 'x'], ['GET', '/v1\\traces', 'X'],
  ['POST', 'http://', 'x'], ['POST', '/v1/traces', 'a b'], ['POST', '/v1/traces', 'x:abc'],
] as const;

it('a target and Host that make no URL: 400 from both receivers', async () => {
  for (const [method, target, host] of ODD) {
    expect(answer(await raw(http.port, request(method, target, host, '{}'))), `${method} ${target} ${host}`).toEqual(TRACING_400);
    expect(answer(await raw(otlpPort, request(method, target, host, '{}'))), `${method} ${target} ${host}`).toEqual(OTLP_400);
  }
});

it('a missing Host: HTTP/1.1 refused by Node, HTTP/1.0 served with the listening address as Host', async () => {
  expect(answer(await raw(http.port, request('POST', '/tracing/spans/ingest', undefined, '{}'))).status).toBe('HTTP/1.1 400 Bad Request');
  const old = answer(await raw(http.port, request('POST', '/tracing/spans/ingest', undefined, '{}', '1.0')));
  expect(old.status).toBe('HTTP/1.1 422 Unprocessable Entity');
  const otlp = answer(await raw(otlpPort, request('POST', '/v1/traces', undefined, '{}', '1.0')));
  expect(otlp.status).toBe('HTTP/1.1 200 OK');
});

it('targets that do make a URL are routed: a query backslash, absolute-form, upper-case Host, odd ports', async () => {
  const span = JSON.stringify({ spans: [flatSpan(1)] });
  for (const [target, host] of [['/tracing/spans/ingest?a=\\', 'x'], ['/tracing/spans/ingest', 'X'], ['/tracing/spans/ingest', 'x:0080'], ['/tracing/spans/ingest', 'x:65535']]) {
    expect(answer(await raw(http.port, request('POST', target, host, span))).status, `${target} ${host}`).toBe('HTTP/1.1 202 Accepted');
  }
  // The absolute-form target is routed as sent (not a path): not found.
  expect(answer(await raw(http.port, request('POST', 'http://x/tracing/spans/ingest', 'x', span))).status).toBe('HTTP/1.1 404 Not Found');
  expect(answer(await raw(otlpPort, request('POST', '/v1/traces', 'X', '{}'))).status).toBe('HTTP/1.1 200 OK');
});

it('HEAD: the headers of the answer, no Content-Length, no body', async () => {
  expect(answer(await raw(http.port, request('HEAD', '/tracing/spans/ingest', 'x')))).toEqual({
    status: 'HTTP/1.1 405 Method Not Allowed',
    headers: ['allow: post', 'connection: close', 'content-type: application/json; charset=utf-8'],
    body: '',
  });
  expect(answer(await raw(otlpPort, request('HEAD', '/v1/traces', 'x')))).toEqual({
    status: 'HTTP/1.1 405 Method Not Allowed',
    headers: ['allow: post', 'connection: close', 'content-type: application/json'],
    body: '',
  });
  // A HEAD refused before routing keeps its Content-Length.
  expect(answer(await raw(http.port, request('HEAD', '*', 'x')))).toEqual({ ...TRACING_400, body: '' });
});

it('an early answer leaves the keep-alive connection usable for the next request', async () => {
  // 415 before the body is read: the unread body is discarded, and the next request on the same
  // connection is parsed from where it starts.
  const post = (type: string, body: string) =>
    `POST /tracing/spans/ingest HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  const unread = post('text/plain', '{"spans":[]}'.padEnd(3000, ' '));
  const next = request('POST', '/tracing/spans/ingest', 'x', JSON.stringify({ spans: [flatSpan(2)] }));
  const text = await raw(http.port, unread + next);
  expect(text).toMatch(/^HTTP\/1\.1 415 /);
  expect(text).toMatch(/}HTTP\/1\.1 202 /);
});
