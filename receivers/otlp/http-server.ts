// The OTLP/HTTP listener: a Node HTTP server handing every request to the shared handler, which reads
// the body straight from Node's IncomingMessage, and writing its reply with the shared writer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IngestConsumer } from '../../pipeline/component.ts';
import type { Logger } from '../../pipeline/log.ts';
import type { Authenticate } from '../../pipeline/auth.ts';
import { NO_RECEIVER_METRICS, type ReceiverMetrics } from '../../pipeline/telemetry/metrics.ts';
import { reasonOfStatus } from '../common/refusal.ts';
import { Cors } from '../common/cors.ts';
import { sendReply } from '../common/reply-writer.ts';
import { isServableTarget } from '../common/request-target.ts';
import { encodeStatusJson, GrpcCode } from '../../codec/otlp/index.ts';
import type { OtlpHttpProtocolConfig } from './config.ts';
import { createOtlpHttpHandler, type OtlpHttpHandler, type OtlpHttpReply } from './http-handler.ts';
import { matchOtlpPath } from './paths.ts';
import { warnIfOpen } from '../common/endpoint.ts';
import { HttpListener } from '../common/listener.ts';

const NOT_FOUND: OtlpHttpReply = {
  status: 404, body: encodeStatusJson(GrpcCode.UNIMPLEMENTED, 'not found: use POST /v1/traces'), headers: { 'content-type': 'application/json' },
};
const INTERNAL: OtlpHttpReply = {
  status: 500, body: encodeStatusJson(GrpcCode.INTERNAL, 'internal error'), headers: { 'content-type': 'application/json' },
};

const JSON_TYPE = 'application/json';

/** Route labels of the request metrics, by matched path. */
const ROUTE_LABELS = { v1: '/v1/traces', otlp: '/otlp/v1/traces' } as const;

export class OtlpHttpServer {
  readonly #logger: Logger;
  readonly #handler: OtlpHttpHandler;
  readonly #cors: Cors;
  readonly #listener: HttpListener;
  readonly #metrics: ReceiverMetrics;

  constructor(config: OtlpHttpProtocolConfig, consumer: IngestConsumer, logger: Logger, authenticate: Authenticate = undefined, metrics = NO_RECEIVER_METRICS) {
    this.#logger = logger;
    this.#metrics = metrics;
    this.#cors = new Cors(config.cors);
    warnIfOpen(config.endpoint, authenticate !== undefined, logger, 'otlp receiver (http)');
    this.#listener = new HttpListener({
      endpoint: config.endpoint, tls: config.tls, timeouts: config, name: 'otlp receiver', transport: ' (http)',
      errorBody: (status, message) => encodeStatusJson(status === 408 ? GrpcCode.DEADLINE_EXCEEDED : GrpcCode.INVALID_ARGUMENT, message),
    }, (incoming, outgoing, host) => void this.#serve(incoming, outgoing, host), logger);
    this.#handler = createOtlpHttpHandler({
      consumer, logger, maxRequestBodySize: config.max_request_body_size, maxSpansPerRequest: config.max_spans_per_request,
      maxValuesPerRequest: config.max_values_per_request, authenticate, metrics,
    });
  }

  /** The answer to one request, counted here (route, status, refusal reason) for this listener. */
  async #reply(incoming: IncomingMessage): Promise<OtlpHttpReply> {
    const started = performance.now();
    const path = matchOtlpPath(incoming.url ?? '/');
    let reply: OtlpHttpReply;
    try {
      reply = path === undefined ? NOT_FOUND : await this.#handler(incoming.method ?? 'GET', incoming, path === 'otlp');
    } catch (error) {
      // Client input never gets here: an exception is a bug, logged and answered 500.
      this.#logger.error('otlp http request failed', { error, method: incoming.method, url: incoming.url });
      reply = INTERNAL;
    }
    this.#metrics.answered(path === undefined ? 'other' : ROUTE_LABELS[path], reply.status, reply.reason ?? reasonOfStatus(reply.status), started);
    return reply;
  }

  async #serve(incoming: IncomingMessage, outgoing: ServerResponse, defaultHost: string | undefined): Promise<void> {
    if (!isServableTarget(incoming, defaultHost)) {
      // As this listener always answered a target that makes no URL: a bare 400, no headers or body.
      outgoing.writeHead(400);
      outgoing.end();
      return;
    }
    const reply = this.#cors.preflight(incoming) ?? this.#cors.answer(incoming, await this.#reply(incoming));
    sendReply(incoming, outgoing, reply, { contentType: JSON_TYPE, closing: false, withLength: incoming.method !== 'HEAD' }, this.#logger);
  }

  start(): Promise<void> {
    return this.#listener.start();
  }

  /** Serves on `previous`'s listening server (a reload; see HttpListener.takeOver). */
  takeOver(previous: OtlpHttpServer): boolean {
    return this.#listener.takeOver(previous.#listener);
  }

  endpoint(): string | undefined {
    return this.#listener.url();
  }

  shutdown(): Promise<void> {
    return this.#listener.shutdown();
  }
}
