// The OTLP/HTTP listener: a Node HTTP server running Hono (via @hono/node-server) with one catch-all
// route; the body is read straight from Node's IncomingMessage by the shared handler.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import type { IngestConsumer } from '../../pipeline/component.ts';
import { StartupError } from '../../pipeline/errors.ts';
import type { Logger } from '../../pipeline/log.ts';
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

  async #respond(bindings: HttpBindings): Promise<Response> {
    const incoming = bindings.incoming;
    try {
      const path = matchOtlpPath(incoming.url ?? '/');
      if (path === undefined) return toResponse(NOT_FOUND);
      return toResponse(await this.#handler(incoming.method ?? 'GET', incoming, path === 'otlp'));
    } catch (error) {
      // Client input never gets here: an exception is a bug, logged and answered 500.
      this.#logger.error('otlp http request failed', { error, method: incoming.method, url: incoming.url });
      return toResponse(INTERNAL);
    }
  }

  start(): Promise<void> {
    const { host, port } = parseEndpoint(this.#config.endpoint);
    const app = new Hono<{ Bindings: HttpBindings }>();
    app.all('*', (c) => this.#respond(c.env));
    const server = createServer(getRequestListener(app.fetch, { hostname: host }));
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
