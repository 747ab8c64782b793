import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { runProcess } from '../../test/helpers/process.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../pipeline/log.ts';
import { HttpListener, type ListenerOptions, type RequestHandler } from './listener.ts';

const options: ListenerOptions = {
  endpoint: '127.0.0.1:0',
  tls: undefined,
  timeouts: { read_header_timeout: 300, read_timeout: 300 },
  errorBody: (status, message) => JSON.stringify({ status, detail: message }),
  name: 'test receiver',
};

/** Starts the reply (head and a first chunk) without reading the request body, and never ends it. */
const streamingHandler: RequestHandler = (_incoming, outgoing) => {
  outgoing.writeHead(200, { 'Content-Type': 'text/plain' });
  outgoing.write('first chunk of the reply\n');
};

const open: HttpListener[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.shutdown()));
});

describe('HttpListener takeOver', () => {
  it('a read timeout on a reply the previous listener was streaming closes the connection, no 408 in the body', async () => {
    const previous = new HttpListener(options, streamingHandler, silentLogger);
    open.push(previous);
    await previous.start();
    const { port } = new URL(previous.url()!);
    const socket = connect(Number(port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk) => received.push(chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    // A body announced but never sent in full: read_timeout fires while the reply is under way.
    socket.write('POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\npartial');
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));

    const next = new HttpListener(options, streamingHandler, silentLogger);
    open.push(next);
    expect(next.takeOver(previous)).toBe(true);
    await closed;

    const text = Buffer.concat(received).toString('latin1');
    expect(text.startsWith('HTTP/1.1 200 OK')).toBe(true);
    expect(text).toContain('first chunk of the reply');
    expect(text).not.toContain('408');
  }, 10_000);
});

describe('HttpListener start-up', () => {
  it('a plain HTTP listener loads neither https nor what an ES-module import of node:http would pull in (undici, http2, worker_threads)', async () => {
    // A fresh Node, since this test process has loaded them already: it starts a listener and lists
    // the Node modules loaded by then.
    const listener = fileURLToPath(new URL('./listener.ts', import.meta.url));
    const script = `
      const { HttpListener } = await import(${JSON.stringify(listener)});
      const logger = { debug() {}, info() {}, warn() {}, error() {} };
      const l = new HttpListener({ endpoint: '127.0.0.1:0', name: 'r', timeouts: { read_header_timeout: 1000, read_timeout: 1000 }, errorBody: () => '' }, (_i, o) => o.end(), logger);
      await l.start();
      process.stdout.write(JSON.stringify({ url: l.url(), loaded: process.moduleLoadList }));
      await l.shutdown();`;
    const run = await runProcess(process.execPath, ['--input-type=module', '-e', script]);
    expect(run.stderr).toBe('');
    const { url, loaded } = JSON.parse(run.stdout) as { url: string; loaded: string[] };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(loaded).toContain('NativeModule http');
    for (const unused of ['https', 'http2', 'worker_threads', 'internal/deps/undici/undici']) expect(loaded).not.toContain(`NativeModule ${unused}`);
  }, 20_000);
});
