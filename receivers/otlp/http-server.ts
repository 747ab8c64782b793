// The OTLP/HTTP listener: a Node HTTP server; the body is read straight from Node's IncomingMessage by
// the shared handler. POST requests with a plain target and Host (every export, in practice) are
// answered directly; the rest go through one Hono catch-all route (via @hono/node-server), whose adapter
// also answers 400 to request targets it cannot make a URL of (docs/decisions/0410).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import type { IngestConsumer } from '../../pipeline/component.ts';
import { StartupError } from '../../pipeline/errors.ts';
import type { Logger } from '../../pipeline/log.ts';
import { discardUnreadBody, isDirectRequest } from '../common/direct-request.ts';
import { writeReply } from '../common/reply-writer.ts';
import { encodeStatusJson, GrpcCode } from '../../pipeline/otlp/index.ts';
import type { OtlpHttpProtocolConfig } from './config.ts';
import { createOtlpHttpHandler, type OtlpHttpHandler, type OtlpHttpReply } from './http-handler.ts';
import { matchOtlpPath } from './paths.ts';
import { parseEndpoint } from './endpoint.ts';

const NOT_FOUND: OtlpHttpReply = {
  status: 404, body: encodeStatusJson(GrpcCode.UNIMPLEMENTED, 'not found: use POST /v1/traces'), headers: { 'content-type': 'application/json' },
};
const INTERNAL: OtlpHttpReply = {
  status: 500, body: encodeStatusJson(GrpcCode.INTERNAL, 'internal error'), headers: { 'content-type': 'application/json' },
};

const JSON_TYPE = 'application/json';

function toResponse(reply: OtlpHttpReply): Response {
  return new Response(reply.body as string, { status: reply.status, headers: reply.headers });
}

export class OtlpHttpServer {
  readonly #config: OtlpHttpProtocolConfig;
  readonly #logger: Logger;
  readonly #handler: OtlpHttpHandler;
  #server: Server | undefined;

  constructor(config: OtlpHttpProtocolConfig, consumer: IngestConsumer, logger: Logger) {
    this.#config = config;
    this.#logger = logger;
    this.#handler = createOtlpHttpHandler({ consumer, logger, maxRequestBodySize: config.max_request_body_size });
  }

  async #reply(incoming: IncomingMessage): Promise<OtlpHttpReply> {
    try {
      const path = matchOtlpPath(incoming.url ?? '/');
      if (path === undefined) return NOT_FOUND;
      return await this.#handler(incoming.method ?? 'GET', incoming, path === 'otlp');
    } catch (error) {
      // Client input never gets here: an exception is a bug, logged and answered 500.
      this.#logger.error('otlp http request failed', { error, method: incoming.method, url: incoming.url });
      return INTERNAL;
    }
  }

  async #respond(bindings: HttpBindings): Promise<Response> {
    return toResponse(await this.#reply(bindings.incoming));
  }

  /** The same reply as through Hono, written without its Request and Response objects. */
  async #respondDirectly(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const reply = await this.#reply(incoming);
    try {
      writeReply(outgoing, reply.status, JSON_TYPE, reply.headers, reply.body, false);
      discardUnreadBody(incoming, outgoing);
    } catch (error) {
      // Our replies carry only valid headers; this is a bug, and the client gets no half answer.
      this.#logger.error('writing the otlp answer failed', { error, method: incoming.method, url: incoming.url });
      outgoing.destroy();
    }
  }

  start(): Promise<void> {
    const { host, port } = parseEndpoint(this.#config.endpoint);
    const app = new Hono<{ Bindings: HttpBindings }>();
    app.all('*', (c) => this.#respond(c.env));
    const listener = getRequestListener(app.fetch, { hostname: host });
    const server = createServer((incoming, outgoing) => {
      if (isDirectRequest(incoming)) void this.#respondDirectly(incoming, outgoing);
      else void listener(incoming, outgoing);
    });
    return new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        reject(new StartupError(`otlp receiver: cannot listen on ${this.#config.endpoint} (http): ${error.code ?? error.message}`, { cause: error }));
      };
      server.once('error', onError);
      server.listen(port, host, () => {
        server.off('error', onError);
        server.on('error', (error) => this.#logger.error('otlp http server error', { error }));
        this.#server = server;
        resolve();
      });
    });
  }

  endpoint(): string | undefined {
    const address = this.#server?.address() as AddressInfo | null | undefined;
    if (!address) return undefined;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  }

  shutdown(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return Promise.resolve();
    this.#server = undefined;
    return new Promise((resolve) => {
      // In-flight requests finish; idle keep-alive connections close now.
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  }
}
