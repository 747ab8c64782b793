import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PermanentError, RetryableError, StartupError } from '../../pipeline/errors.ts';
import { createLogger, silentLogger } from '../../pipeline/log.ts';
import { decodeExportRequestJson, encodeExportResponse, encodeStatus } from '../../codec/otlp/index.ts';
import { decodeExportRequest } from '../../test/helpers/otlp-decode.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { Span } from '../../model/span.ts';
import { withAllFields } from '../../test/helpers/spans.ts';
import { tracesUrl, type OtlpExporterConfig } from './config.ts';
import { factory } from './factory.ts';
import { OtlpExporter } from './otlp-exporter.ts';
import { parseRetryAfter } from './retry-after.ts';

interface Seen {
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

type Answer = (req: Seen, res: ServerResponse) => void;

let server: Server;
let base: string;
const seen: Seen[] = [];
let answer: Answer;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = { url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      seen.push(s);
      answer(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => {
  server.closeAllConnections();
  server.close(() => r());
}));

beforeEach(() => {
  seen.length = 0;
  answer = (_req, res) => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
});

function config(overrides: Partial<OtlpExporterConfig> = {}): OtlpExporterConfig {
  return {
    endpoint: base, encoding: 'proto', compression: 'gzip', headers: {}, timeout: 5000, max_request_spans: 1000,
    retry: { initial_interval: 1000, max_interval: 30000, multiplier: 1.5 },
    dead_letter: { path: './data/dead-letters/otlp.jsonl', max_attempts: 10 },
    ...overrides,
  };
}

function spans(n: number): Span[] {
  const out: Span[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: (i + 1).toString(16).padStart(16, '0'), name: `s${i}`, kind: 1,
      startNs: 1776363498123456789n, endNs: 1776363499123456789n, status: { code: 0 },
      attributes: new AttributeList([['i', i], ['k', 'v']]),
      resource: new AttributeList([['service.name', 'shop']]),
    });
  }
  return out;
}

async function exportError(exporter: OtlpExporter, batch: Span[]): Promise<unknown> {
  try {
    await exporter.export(batch);
  } catch (error) {
    return error;
  }
  throw new Error('export resolved');
}

describe('otlp exporter', () => {
  it('sends gzipped protobuf to <endpoint>/v1/traces with the configured headers', async () => {
    const exporter = new OtlpExporter(config({ headers: { Authorization: 'ApiKey secret', 'X-Team': 'a' } }), silentLogger);
    await exporter.start();
    const batch = spans(3);
    await exporter.export(batch);
    expect(seen).toHaveLength(1);
    const req = seen[0];
    expect(req.url).toBe('/v1/traces');
    expect(req.headers['content-type']).toBe('application/x-protobuf');
    expect(req.headers['content-encoding']).toBe('gzip');
    expect(req.headers.authorization).toBe('ApiKey secret');
    expect(req.headers['x-team']).toBe('a');
    expect(decodeExportRequest(gunzipSync(req.body)).spans).toStrictEqual(batch.map(withAllFields));
  });

  it('sends each project\'s spans in requests of their own, under that project\'s headers_by_project', async () => {
    const exporter = new OtlpExporter(config({
      headers: { Authorization: 'ApiKey shared' },
      headers_by_project: { 'proj-a': { Authorization: 'ApiKey a-secret' }, 'proj-b': { 'X-Tenant': 'b' } },
    }), silentLogger);
    await exporter.start();
    const batch = spans(5);
    batch[0].project = 'proj-a';
    batch[1].project = 'proj-b';
    batch[2].project = 'proj-a';
    batch[3].project = 'proj-c';
    await exporter.export(batch);
    expect(seen.map((r) => [decodeExportRequest(gunzipSync(r.body)).spans.length, r.headers.authorization, r.headers['x-tenant']])).toEqual([
      [2, 'ApiKey a-secret', undefined],
      [1, 'ApiKey shared', 'b'],
      [1, 'ApiKey shared', undefined],
      [1, 'ApiKey shared', undefined],
    ]);
  });

  it('sends OTLP/JSON uncompressed when configured, to an endpoint that has its own path', async () => {
    const exporter = new OtlpExporter(config({ endpoint: `${base}/api/otlp/v1/traces`, encoding: 'json', compression: 'none' }), silentLogger);
    answer = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    const batch = spans(2);
    await exporter.export(batch);
    expect(seen[0].url).toBe('/api/otlp/v1/traces');
    expect(seen[0].headers['content-type']).toBe('application/json');
    expect(seen[0].headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(seen[0].body.toString()).resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano).toBe('1776363498123456789');
    expect(decodeExportRequestJson(seen[0].body).spans).toStrictEqual(batch.map(withAllFields));
  });

  it('splits batches larger than max_request_spans', async () => {
    const exporter = new OtlpExporter(config({ max_request_spans: 1000, compression: 'none' }), silentLogger);
    await exporter.export(spans(2500));
    expect(seen.map((s) => decodeExportRequest(s.body).spans.length)).toEqual([1000, 1000, 500]);
    expect(decodeExportRequest(seen[2].body).spans[0].name).toBe('s2000');
  });

  it('429, 502, 503, 504 are retryable, with Retry-After in milliseconds', async () => {
    const exporter = new OtlpExporter(config(), silentLogger);
    for (const status of [429, 502, 503, 504]) {
      answer = (_req, res) => res.writeHead(status, { 'retry-after': '7', 'content-type': 'application/json' }).end('{"code":14,"message":"busy"}');
      const error = await exportError(exporter, spans(1));
      expect(error, String(status)).toBeInstanceOf(RetryableError);
      expect((error as RetryableError).retryAfterMs).toBe(7000);
      expect((error as Error).message).toContain('busy');
    }
    answer = (_req, res) => res.writeHead(503).end();
    expect(((await exportError(exporter, spans(1))) as RetryableError).retryAfterMs).toBeUndefined();
  });

  it('transport failures and timeouts are retryable', async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const freePort = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const refused = new OtlpExporter(config({ endpoint: `http://127.0.0.1:${freePort}` }), silentLogger);
    const e1 = await exportError(refused, spans(1));
    expect(e1).toBeInstanceOf(RetryableError);
    expect((e1 as Error).message).toContain('ECONNREFUSED');
    answer = () => { /* never answers */ };
    const slow = new OtlpExporter(config({ timeout: 100 }), silentLogger);
    const e2 = await exportError(slow, spans(1));
    expect(e2).toBeInstanceOf(RetryableError);
    expect((e2 as Error).message).toContain('timed out');
  });

  it('other 4xx are permanent, carrying the status and the first KiB of the body', async () => {
    const exporter = new OtlpExporter(config(), silentLogger);
    answer = (_req, res) => res.writeHead(400, { 'content-type': 'application/json' }).end('x'.repeat(5000));
    const error = await exportError(exporter, spans(2));
    expect(error).toBeInstanceOf(PermanentError);
    expect((error as PermanentError).spans).toBeUndefined(); // the whole batch
    const cause = (error as PermanentError).cause as { status: number; body: string };
    expect(cause.status).toBe(400);
    expect(cause.body).toHaveLength(1024);
    answer = (_req, res) => res.writeHead(401, { 'content-type': 'application/x-protobuf' }).end(encodeStatus(16, 'bad api key'));
    const e2 = await exportError(exporter, spans(1));
    expect(e2).toBeInstanceOf(PermanentError);
    expect((e2 as Error).message).toBe('OTLP endpoint answered 401: bad api key');
  });

  it('a permanent failure of one split request names only its spans; the others are delivered', async () => {
    const exporter = new OtlpExporter(config({ max_request_spans: 2, compression: 'none' }), silentLogger);
    let n = 0;
    answer = (_req, res) => (n++ === 1 ? res.writeHead(413).end('too big') : res.writeHead(200).end());
    const batch = spans(5);
    const error = await exportError(exporter, batch);
    expect(seen).toHaveLength(3);
    expect(error).toBeInstanceOf(PermanentError);
    expect((error as PermanentError).spans).toEqual(batch.slice(2, 4));
  });

  it('other statuses (500) are errors that count as an attempt, neither retryable nor permanent', async () => {
    const exporter = new OtlpExporter(config(), silentLogger);
    answer = (_req, res) => res.writeHead(500).end('oops');
    const error = await exportError(exporter, spans(1));
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(RetryableError);
    expect(error).not.toBeInstanceOf(PermanentError);
  });

  it('partial_success is logged and counted, not retried', async () => {
    const lines: string[] = [];
    const exporter = new OtlpExporter(config(), createLogger({ write: (l) => lines.push(l) }));
    answer = (_req, res) => res.writeHead(200, { 'content-type': 'application/x-protobuf' })
      .end(encodeExportResponse({ rejectedSpans: 2, errorMessage: 'a/b: invalid trace_id' }));
    await exporter.export(spans(3));
    expect(seen).toHaveLength(1);
    expect(exporter.stats.rejectedSpans).toBe(2);
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({ level: 'warn', rejected_spans: 2, error_message: 'a/b: invalid trace_id' }),
    ]);
  });

  it('an endpoint that is not an http(s) URL is a config problem and a StartupError', async () => {
    expect(factory.check!(config({ endpoint: 'localhost:4318' }))).toEqual([expect.objectContaining({ key: 'endpoint' })]);
    expect(factory.check!(config())).toEqual([]);
    await expect(new OtlpExporter(config({ endpoint: 'ftp://x' }), silentLogger).start()).rejects.toBeInstanceOf(StartupError);
  });

  it('URL and Retry-After rules', () => {
    expect(tracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('https://collector/')).toBe('https://collector/v1/traces');
    expect(tracesUrl('https://cloud.agenta.ai/api/otlp/v1/traces')).toBe('https://cloud.agenta.ai/api/otlp/v1/traces');
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:10 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(10_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});
