// The http receiver over real loopback HTTP, fed into an IngestConsumer made of the real synchronous
// processor (namespace) that records what it appends, or refuses.
import { Agent, request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { stampProject, type WorkingBatch } from '../../model/batch.ts';
import type { IngestConsumer, Receiver, ReceiverContext, SyncProcessor } from '../../pipeline/component.ts';
import { RefusedError } from '../../pipeline/errors.ts';
import { silentLogger } from '../../pipeline/log.ts';
import type { Span } from '../../model/span.ts';
import { factory as namespaceFactory } from '../../processors/namespace/factory.ts';
import type { HttpReceiverConfig } from '../../receivers/http/config.ts';
import { httpDefaults } from '../helpers/http-receiver-config.ts';
import { factory } from '../../receivers/http/factory.ts';

export interface ConsumerOptions {
  /** Every consume call answers this refusal (nothing recorded). */
  refuseAppend?: RefusedError;
  /** admit() refuses. */
  refuseAdmit?: { message: string; retryAfterMs: number };
}

export interface RecordingConsumer extends IngestConsumer {
  /** One entry per append call. */
  appended: Span[][];
  /** Every appended span, in order. */
  spans(): Span[];
  options: ConsumerOptions;
}

function processors(): SyncProcessor[] {
  const ctx = (id: string) => ({ id, logger: silentLogger });
  return [namespaceFactory.create({ semconv: 'otlp', propagate_metrics: false }, ctx('namespace'))];
}

export function recordingConsumer(options: ConsumerOptions = {}): RecordingConsumer {
  const chain = processors();
  const appended: Span[][] = [];
  return {
    appended,
    options,
    spans: () => appended.flat(),
    admit: () => options.refuseAdmit,
    waitForExporters: () => undefined,
    async consume(batch: WorkingBatch) {
      stampProject(batch);
      for (const p of chain) p.process(batch);
      if (options.refuseAppend) return options.refuseAppend;
      appended.push(batch.spans);
      return undefined;
    },
  };
}

export interface Running {
  receiver: Receiver;
  consumer: RecordingConsumer;
  port: number;
  close(): Promise<void>;
}

export async function startReceiver(
  overrides: Partial<HttpReceiverConfig> = {}, consumer: RecordingConsumer = recordingConsumer(),
  authenticator?: ReceiverContext['authenticator'],
): Promise<Running> {
  const config: HttpReceiverConfig = { ...httpDefaults, endpoint: '127.0.0.1:0', ...overrides };
  const receiver = factory.create(config, { id: 'http', logger: silentLogger, consumer, authenticator });
  await receiver.start();
  const port = Number(new URL(receiver.endpoints()[0]).port);
  return { receiver, consumer, port, close: () => receiver.shutdown() };
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

/** One request with exact control of the path, headers and body bytes (fetch would rewrite some). */
export function send(
  port: number, method: string, path: string, body?: string | Buffer, headers: OutgoingHttpHeaders = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const hasType = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
    const req = httpRequest(
      {
        host: '127.0.0.1', port, method, path, agent,
        // A header given as undefined is left out (e.g. no Content-Type at all).
        headers: Object.fromEntries(Object.entries({
          ...(body !== undefined && !hasType ? { 'content-type': 'application/json' } : {}),
          // Explicit, because Node sends a DELETE body with neither a length nor chunked framing.
          ...(body !== undefined ? { 'content-length': Buffer.byteLength(body) } : {}),
          ...headers,
        }).filter(([, v]) => v !== undefined)),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export function post(port: number, path: string, body: unknown, headers: OutgoingHttpHeaders = {}): Promise<HttpResult> {
  return send(port, 'POST', path, typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body), headers);
}

// ---- bodies ------------------------------------------------------------------------------------

export const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** A valid flat span; `i` makes the span id distinct. */
export function flatSpan(i: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    trace_id: TRACE_ID,
    span_id: (0x1000 + i).toString(16).padStart(16, '0'),
    span_name: `span-${i}`,
    start_time: 1776363498,
    end_time: 1776363499,
    ...extra,
  };
}

export const ROUTES = ['/tracing/spans/ingest', '/tracing/traces/', '/simple/traces/'] as const;

/** Every alias of a route (§1.1): `/api` prefixes, `/preview`, with and without the trailing slash. */
export function aliases(route: string): string[] {
  const bare = route.endsWith('/') ? route.slice(0, -1) : route;
  const out: string[] = [];
  for (const prefix of ['', '/api', '/api/api', '/preview', '/api/preview', '/api/api/preview']) {
    out.push(prefix + bare, prefix + bare + '/');
  }
  return out;
}

/** A POST sent with chunked framing (no Content-Length), so the size limit is enforced while reading. */
export function postChunked(
  port: number, path: string, chunks: Buffer[], headers: OutgoingHttpHeaders = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: 'POST', path, agent: false,
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...headers } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: JSON.parse(text) });
        });
      },
    );
    // The server may answer 413 and close before every chunk is written.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    for (const c of chunks) req.write(c);
    req.end();
  });
}
