import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { IngestConsumer } from '../../pipeline/component.ts';
import { StartupError } from '../../pipeline/errors.ts';
import { createLogger, silentLogger } from '../../pipeline/log.ts';
import { httpDefaults } from '../../test/helpers/http-receiver-config.ts';
import { factory } from './factory.ts';
import { parseEndpoint } from '../common/endpoint.ts';

const idle: IngestConsumer = { admit: () => undefined, waitForExporters: () => undefined, consume: async () => undefined };
const started: Array<{ shutdown(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((r) => r.shutdown()));
});

async function start(consumer: IngestConsumer = idle, logger = silentLogger) {
  const receiver = factory.create({ ...httpDefaults, endpoint: '127.0.0.1:0' }, { id: 'http', logger, consumer });
  await receiver.start();
  started.push(receiver);
  return { receiver, port: Number(new URL(receiver.endpoints()[0]).port) };
}

function postOnce(port: number, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/tracing/spans/ingest', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('http receiver appends', () => {
  it('tell the stream the body bytes the accepted spans came in, in proportion to those kept', async () => {
    const told: Array<number | undefined> = [];
    const consumer: IngestConsumer = {
      admit: () => undefined,
      waitForExporters: () => undefined,
      consume: async (_batch, wireBytes) => {
        told.push(wireBytes);
        return undefined;
      },
    };
    const { port } = await start(consumer);
    // Of the body's two spans, one is kept (the other has no ids).
    const valid = { trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16), start_time: 1776363498, end_time: 1776363499 };
    const body = JSON.stringify({ spans: [valid, { span_name: 'second, with a longer name' }] });
    expect((await postOnce(port, body)).status).toBe(202);
    expect(told).toEqual([Math.ceil(Buffer.byteLength(body) / 2)]);
  });
});

describe('http receiver lifecycle', () => {
  it('parses endpoints, IPv6 included', () => {
    expect(parseEndpoint('127.0.0.1:4319')).toEqual({ host: '127.0.0.1', port: 4319 });
    expect(parseEndpoint('[::1]:80')).toEqual({ host: '::1', port: 80 });
    expect(parseEndpoint(':4319')).toEqual({ host: undefined, port: 4319 });
  });

  it('reports its bound address', async () => {
    const { receiver, port } = await start();
    expect(receiver.endpoints()).toEqual([`http://127.0.0.1:${port}`]);
    expect(port).toBeGreaterThan(0);
  });

  it('rejects with a StartupError naming the endpoint when the port is in use', async () => {
    const { port } = await start();
    const second = factory.create({ ...httpDefaults, endpoint: `127.0.0.1:${port}` }, { id: 'http', logger: silentLogger, consumer: idle });
    const error = await second.start().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    expect((error as Error).message).toContain('EADDRINUSE');
  });

  it('a bug behind the handler is a logged 500 with the documented body, and the server lives on', async () => {
    const lines: string[] = [];
    const logger = createLogger({ write: (l) => lines.push(l) });
    let broken = true;
    const consumer: IngestConsumer = {
      admit: () => undefined,
      waitForExporters: () => undefined,
      consume: async () => {
        if (broken) throw new Error('boom');
        return undefined;
      },
    };
    const { port } = await start(consumer, logger);
    const valid = '{"spans":[{"trace_id":"' + 'a'.repeat(32) + '","span_id":"' + 'b'.repeat(16) + '","start_time":1776363498,"end_time":1776363499}]}';
    const res = await postOnce(port, valid);
    expect(res.status).toBe(500);
    expect(JSON.parse(res.text)).toEqual({ detail: 'Internal Server Error' });
    expect(lines.some((l) => l.includes('boom'))).toBe(true);
    broken = false;
    expect((await postOnce(port, valid)).status).toBe(202);
  });

  it('shutdown lets an in-flight request finish, then closes', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const consumer: IngestConsumer = {
      admit: () => undefined,
      waitForExporters: () => undefined,
      consume: async () => {
        await gate;
        return undefined;
      },
    };
    const { receiver, port } = await start(consumer);
    const valid = '{"spans":[{"trace_id":"' + 'a'.repeat(32) + '","span_id":"' + 'b'.repeat(16) + '","start_time":1776363498,"end_time":1776363499}]}';
    const inflight = postOnce(port, valid);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = receiver.shutdown();
    release();
    expect((await inflight).status).toBe(202);
    await closed;
    await expect(postOnce(port, '{}')).rejects.toThrow();
  });
});
