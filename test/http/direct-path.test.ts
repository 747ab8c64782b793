// Both receivers answer POSTs with a plain Host directly and everything else through Hono
// (docs/decisions/0410): the two ways must give the same status, headers and body. A Host in upper
// case is not "plain", so the same request goes once each way.
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

/** Raw answers to `requests`, sent one after another on one connection. */
function exchange(port: number, requests: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const answers: string[] = [];
    let text = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(requests[0]));
    socket.on('error', reject);
    socket.on('data', (d) => {
      text += d;
      const head = text.indexOf('\r\n\r\n');
      if (head < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(text.slice(0, head))?.[1] ?? 0);
      if (text.length < head + 4 + length) return;
      answers.push(text.slice(0, head + 4 + length));
      text = text.slice(head + 4 + length);
      if (answers.length === requests.length) {
        socket.destroy();
        resolve(answers);
      } else socket.write(requests[answers.length]);
    });
  });
}

/** Status line, sorted header lines without Date, body. */
function normalised(answer: string): string {
  const [head, body] = answer.split('\r\n\r\n');
  const [status, ...lines] = head.split('\r\n');
  return [status, ...lines.filter((l) => !/^date:/i.test(l)).map((l) => l.toLowerCase()).sort(), body].join('\n');
}

function post(host: string, path: string, body: string, type = 'application/json'): string {
  return `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

const TRACING = [
  ['/tracing/spans/ingest', JSON.stringify({ spans: [flatSpan(1)] })],
  ['/api/tracing/traces/', '{"spans":'],
  ['/simple/traces', '[]'],
  ['/tracing/spans/query', '{}'],
  ['/nowhere', ''],
  ['/tracing/traces/abc', '{}'],
  ['/otlp/v1/traces', ''],
  ['/tracing/spans/ingest', 'x'.repeat(5000)],
] as const;

it('tracing API: direct and Hono answers are the same', async () => {
  for (const [path, body] of TRACING) {
    const [direct, viaHono] = await exchange(http.port, [post('x', path, body), post('X', path, body)]);
    expect(normalised(direct), path).toBe(normalised(viaHono));
    expect(direct).toMatch(/^HTTP\/1\.1 \d{3} /);
  }
  expect(http.consumer.appended.length).toBe(2);
});

it('OTLP/HTTP: direct and Hono answers are the same', async () => {
  const cases = [
    post('x', '/v1/traces', '', 'application/x-protobuf'),
    post('x', '/v1/traces', '{}', 'application/json'),
    post('x', '/v1/traces', 'x', 'text/plain'),
    post('x', '/v1/traces', '\u00ff\u00ff', 'application/x-protobuf'),
    post('x', '/elsewhere', ''),
  ];
  for (const request of cases) {
    const [direct, viaHono] = await exchange(otlpPort, [request, request.replace('Host: x', 'Host: X')]);
    expect(normalised(direct)).toBe(normalised(viaHono));
  }
});

it('an early answer leaves the keep-alive connection usable for the next request', async () => {
  // 415 before the body is read: the unread body is discarded, and the next request on the same
  // connection is parsed from where it starts.
  const unread = post('x', '/tracing/spans/ingest', '{"spans":[]}'.padEnd(3000, ' '), 'text/plain');
  const [first, second] = await exchange(http.port, [unread, post('x', '/tracing/spans/ingest', JSON.stringify({ spans: [flatSpan(2)] }))]);
  expect(first).toMatch(/^HTTP\/1\.1 415 /);
  expect(second).toMatch(/^HTTP\/1\.1 202 /);
});
