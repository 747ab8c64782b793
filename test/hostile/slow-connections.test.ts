// Slow and idle clients against both HTTP receivers (read_header_timeout 1 s, read_timeout 2 s here):
// one that connects and sends nothing, one that sends its headers and stops, one that trickles its body a
// byte at a time. Each is answered 408 with the receiver's error body naming the keys, and disconnected,
// while other clients keep being served. On gRPC (read_timeout 2 s) a stream whose message never
// completes is ended with DEADLINE_EXCEEDED, and other calls are answered meanwhile.
import { connect as connectHttp2 } from 'node:http2';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_PATH } from '../../receivers/otlp/grpc-server.ts';
import { proto } from './bodies.ts';
import { expectPeakRssWithinLimit, expectServing, READ_HEADER_TIMEOUT_MS, READ_TIMEOUT_MS, startHostile, type Hostile } from './hostile-daemon.ts';

let h: Hostile;
beforeAll(async () => {
  h = await startHostile();
});
afterAll(async () => {
  expectPeakRssWithinLimit(h);
  await h.stop();
});

interface SlowClient {
  /** Everything the server sent, once it closed the connection. */
  closed: Promise<string>;
  /** Milliseconds from the connection to its end. */
  elapsed(): number;
  socket: Socket;
}

/** Opens a raw TCP connection to `base` (`http://host:port`); `behave` decides what it sends. */
function slowClient(base: string, behave: (socket: Socket) => void): SlowClient {
  const { hostname, port } = new URL(base);
  const socket = connect(Number(port), hostname);
  const started = Date.now();
  let ended = 0;
  let received = '';
  socket.on('data', (d) => (received += d));
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.on('close', () => {
    ended = Date.now();
    resolve(received);
  }));
  socket.on('connect', () => behave(socket));
  return { closed, elapsed: () => ended - started, socket };
}

const HEAD = (path: string, type: string) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nContent-Length: 1000\r\n\r\n`;

/** Sends `head`, then one byte every 100 ms until the connection ends. */
function trickle(head: string): (socket: Socket) => void {
  return (socket) => {
    socket.write(head);
    const timer = setInterval(() => {
      if (socket.destroyed || !socket.writable) clearInterval(timer);
      else socket.write('{');
    }, 100);
    socket.on('close', () => clearInterval(timer));
  };
}

/** The status and body of the raw answer. */
function parseAnswer(raw: string): { status: number; body: string } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
  return { status, body: raw.slice(raw.indexOf('\r\n\r\n') + 4) };
}

const TIMEOUT_MESSAGE = /did not arrive within read_header_timeout \(1000 ms\) or read_timeout \(2000 ms\)/;

describe('slow and idle connections', () => {
  it('idle, headers-then-nothing and trickling clients get 408 with a detail and are cut; others are served meanwhile', async () => {
    const clients: Array<{ kind: string; client: SlowClient; receiver: 'tracing' | 'otlp' }> = [];
    for (const [receiver, base, path, type] of [
      ['tracing', h.tracingBase, '/tracing/spans/ingest', 'application/json'],
      ['otlp', h.otlpBase, '/v1/traces', 'application/x-protobuf'],
    ] as const) {
      for (let i = 0; i < 5; i++) {
        clients.push({ kind: 'idle', receiver, client: slowClient(base, () => undefined) });
        clients.push({ kind: 'stops after headers', receiver, client: slowClient(base, (s) => s.write(HEAD(path, type))) });
        clients.push({ kind: 'trickles', receiver, client: slowClient(base, trickle(HEAD(path, type))) });
      }
    }
    // While 30 slow clients hold their connections, valid requests on every transport are answered.
    await expectServing(h);
    const answers = await Promise.all(clients.map(async ({ kind, client, receiver }) => ({ kind, receiver, raw: await client.closed, elapsed: client.elapsed() })));
    for (const { kind, receiver, raw, elapsed } of answers) {
      const { status, body } = parseAnswer(raw);
      expect(status, `${receiver} ${kind}: ${raw}`).toBe(408);
      const parsed = JSON.parse(body) as { detail?: string; message?: string; code?: number };
      // The tracing API's `detail`, OTLP's google.rpc.Status (DEADLINE_EXCEEDED).
      expect(receiver === 'tracing' ? parsed.detail : parsed.message).toMatch(TIMEOUT_MESSAGE);
      if (receiver === 'otlp') expect(parsed.code).toBe(4);
      // Cut after its timeout (the header one for an idle client), not held for minutes.
      expect(elapsed).toBeGreaterThanOrEqual((kind === 'idle' ? READ_HEADER_TIMEOUT_MS : READ_TIMEOUT_MS) - 100);
      expect(elapsed).toBeLessThan(15_000);
    }
    await expectServing(h);
  });

  it('bytes that are not HTTP/1.1: 400 with a detail, and the connection is closed', async () => {
    for (const base of [h.tracingBase, h.otlpBase]) {
      const client = slowClient(base, (s) => s.write('\x16\x03\x01 not http at all\r\n\r\n'));
      const { status, body } = parseAnswer(await client.closed);
      expect(status).toBe(400);
      const parsed = JSON.parse(body) as { detail?: string; message?: string };
      expect(parsed.detail ?? parsed.message).toMatch(/^the request is not valid HTTP\/1\.1 \(HPE_/);
    }
    await expectServing(h);
  });

  it('gRPC: a stream whose message stops halfway is ended with DEADLINE_EXCEEDED; other calls are answered', async () => {
    const session = connectHttp2(`http://127.0.0.1:${h.grpcPort}`);
    session.on('error', () => undefined);
    const started = Date.now();
    const stalled = session.request({ ':method': 'POST', ':path': EXPORT_PATH, 'content-type': 'application/grpc', te: 'trailers' });
    stalled.on('error', () => undefined);
    const ended = new Promise<{ code?: string; message?: string }>((resolve) => {
      const read = (headers: Record<string, unknown>) => {
        if (headers['grpc-status'] !== undefined) {
          resolve({ code: String(headers['grpc-status']), message: decodeURIComponent(String(headers['grpc-message'])) });
        }
      };
      stalled.on('response', read);
      stalled.on('trailers', read);
      stalled.on('close', () => resolve({}));
    });
    // The prefix announces 1000 bytes; 10 arrive, and then nothing.
    const prefix = Buffer.alloc(5);
    prefix.writeUInt32BE(1000, 1);
    stalled.write(Buffer.concat([prefix, proto.valid().subarray(0, 10)]));
    await expectServing(h);
    expect(await ended).toEqual({ code: '4', message: 'the request did not arrive within read_timeout (2000 ms)' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(READ_TIMEOUT_MS - 100);
    session.close();
  });
});
