// The `http` receiver: a Node HTTP server handing every request to TracingApiHandler. Routing is done by
// the handler's own path normalisation (routes.ts), and the body is read straight from Node's
// IncomingMessage as Buffers. POST requests with a plain target and Host (every write, in practice) are
// answered directly; the rest go through one Hono catch-all route, whose adapter also answers 400 to
// request targets it cannot make a URL of (docs/decisions/0410).
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import type { IngestConsumer, Receiver } from '../../pipeline/component.ts';
import { StartupError } from '../../pipeline/errors.ts';
import type { Logger } from '../../pipeline/log.ts';
import { discardUnreadBody, isDirectRequest } from '../common/direct-request.ts';
import { writeReply } from '../common/reply-writer.ts';
import type { HttpReceiverConfig } from './config.ts';
import { TracingApiHandler } from './handler.ts';
import { createOtlpRoute } from './otlp-route.ts';
import { detailReply, INTERNAL_ERROR, JSON_CONTENT_TYPE, type Reply } from './replies.ts';

const JSON_HEADERS: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE };
const BAD_REQUEST = detailReply(400, 'Bad Request');

/** `host:port` -> parts; `[::1]:4319` -> `::1`; an empty host listens on every interface. */
export function parseEndpoint(endpoint: string): { host: string | undefined; port: number } {
  const colon = endpoint.lastIndexOf(':');
  let host = endpoint.slice(0, colon);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host: host === '' ? undefined : host, port: Number(endpoint.slice(colon + 1)) };
}

/** While shutting down, every answer closes its connection, so keep-alive clients do not hold it open. */
function toResponse(reply: Reply, closing = false): Response {
  let headers = reply.headers === undefined ? JSON_HEADERS : { ...JSON_HEADERS, ...reply.headers };
  if (closing) headers = { ...headers, connection: 'close' };
  return new Response(reply.body as string, { status: reply.status, headers });
}

export class HttpReceiver implements Receiver {
  readonly #config: HttpReceiverConfig;
  readonly #logger: Logger;
  readonly #handler: TracingApiHandler;
  #server: Server | undefined;
  #closing = false;

  constructor(config: HttpReceiverConfig, consumer: IngestConsumer, logger: Logger) {
    this.#config = config;
    this.#logger = logger;
    this.#handler = new TracingApiHandler(config, consumer, createOtlpRoute({ config, consumer, logger }));
  }

  async #reply(incoming: IncomingMessage): Promise<Reply> {
    try {
      return await this.#handler.handle(incoming);
    } catch (error) {
      this.#logger.error('request failed', { error, method: incoming.method, url: incoming.url });
      return INTERNAL_ERROR;
    }
  }

  async #respond(incoming: IncomingMessage): Promise<Response> {
    return toResponse(await this.#reply(incoming), this.#closing);
  }

  /** The same reply as through Hono, written without its Request and Response objects. */
  async #respondDirectly(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const reply = await this.#reply(incoming);
    try {
      writeReply(outgoing, reply.status, JSON_CONTENT_TYPE, reply.headers, reply.body, this.#closing);
      discardUnreadBody(incoming, outgoing);
    } catch (error) {
      // Our replies carry only valid headers; this is a bug, and the client gets no half answer.
      this.#logger.error('writing the answer failed', { error, method: incoming.method, url: incoming.url });
      outgoing.destroy();
    }
  }

  start(): Promise<void> {
    const { host, port } = parseEndpoint(this.#config.endpoint);
    const app = new Hono<{ Bindings: HttpBindings }>();
    app.all('*', (c) => this.#respond(c.env.incoming));
    const listener = getRequestListener(app.fetch, {
      hostname: host,
      // The adapter rejects some request targets before Hono runs (e.g. a missing Host header).
      errorHandler: () => toResponse(BAD_REQUEST),
    });
    const server = createServer((incoming, outgoing) => {
      if (isDirectRequest(incoming)) void this.#respondDirectly(incoming, outgoing);
      else void listener(incoming, outgoing);
    });
    return new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        reject(new StartupError(`http receiver: cannot listen on ${this.#config.endpoint}: ${error.code ?? error.message}`, { cause: error }));
      };
      server.once('error', onError);
      server.listen(port, host, () => {
        server.off('error', onError);
        server.on('error', (error) => this.#logger.error('http server error', { error }));
        this.#server = server;
        resolve();
      });
    });
  }

  endpoints(): string[] {
    const address = this.#server?.address() as AddressInfo | null | undefined;
    if (!address) return [];
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return [`http://${host}:${address.port}`];
  }

  shutdown(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return Promise.resolve();
    this.#server = undefined;
    this.#closing = true;
    return new Promise((resolve) => {
      // In-flight requests finish; idle keep-alive connections are closed now, busy ones once they answer.
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  }
}
