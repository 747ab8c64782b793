// The `http` receiver: a Node HTTP server handing every request to TracingApiHandler and writing its
// reply with the shared writer. Routing is done by the handler's own path normalisation (routes.ts), and
// the body is read straight from Node's IncomingMessage as Buffers.
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Receiver, ReceiverContext } from '../../pipeline/component.ts';
import { authenticateFor, KeySet, type Authenticate } from '../../pipeline/auth.ts';
import { StartupError } from '../../pipeline/errors.ts';
import type { Logger } from '../../pipeline/log.ts';
import { Cors } from '../common/cors.ts';
import { secureContextOptions, watchTlsFiles } from '../common/tls.ts';
import { parseEndpoint, warnIfOpen } from '../common/endpoint.ts';
import { sendReply } from '../common/reply-writer.ts';
import { isServableTarget } from '../common/request-target.ts';
import type { HttpReceiverConfig } from './config.ts';
import { TracingApiHandler } from './handler.ts';
import { createOtlpRoute } from './otlp-route.ts';
import { detailReply, INTERNAL_ERROR, JSON_CONTENT_TYPE, type Reply } from './replies.ts';

const BAD_REQUEST = detailReply(400, 'Bad Request');

/** The `api_keys` shorthand's check. */
function keySetCheck(keys: KeySet): Authenticate {
  return (authorization) => keys.authenticate(authorization);
}

export class HttpReceiver implements Receiver {
  readonly #config: HttpReceiverConfig;
  readonly #logger: Logger;
  readonly #handler: TracingApiHandler;
  readonly #cors: Cors;
  #server: Server | undefined;
  /** Stops the check of the TLS files for a renewal (set while serving HTTPS). */
  #stopWatching: (() => void) | undefined;
  #closing = false;

  constructor(config: HttpReceiverConfig, context: ReceiverContext) {
    const { consumer, logger } = context;
    this.#config = config;
    this.#logger = logger;
    this.#cors = new Cors(config.cors);
    const authenticate = config.auth !== undefined
      ? authenticateFor(config.auth, context.authenticator)
      : config.api_keys.length > 0 ? keySetCheck(new KeySet(config.api_keys.map((key) => ({ key })))) : undefined;
    this.#handler = new TracingApiHandler(config, consumer, createOtlpRoute({ config, consumer, logger }), authenticate);
    warnIfOpen(config.endpoint, authenticate !== undefined, logger, 'http receiver');
  }

  async #reply(incoming: IncomingMessage): Promise<Reply> {
    try {
      return await this.#handler.handle(incoming);
    } catch (error) {
      this.#logger.error('request failed', { error, method: incoming.method, url: incoming.url });
      return INTERNAL_ERROR;
    }
  }

  /** Answers one request; while shutting down, every answer closes its connection, so keep-alive
   *  clients do not hold the server open. */
  async #serve(incoming: IncomingMessage, outgoing: ServerResponse, defaultHost: string | undefined): Promise<void> {
    const servable = isServableTarget(incoming, defaultHost);
    const reply = servable ? this.#cors.preflight(incoming) ?? this.#cors.answer(incoming, await this.#reply(incoming)) : BAD_REQUEST;
    const withLength = !servable || incoming.method !== 'HEAD';
    sendReply(incoming, outgoing, reply, { contentType: JSON_CONTENT_TYPE, closing: this.#closing, withLength }, this.#logger);
  }

  start(): Promise<void> {
    const { host, port } = parseEndpoint(this.#config.endpoint);
    const listener = (incoming: IncomingMessage, outgoing: ServerResponse) => void this.#serve(incoming, outgoing, host);
    const tls = this.#config.tls;
    const server = tls === undefined ? createServer(listener) : createHttpsServer(secureContextOptions(tls), listener);
    if (tls !== undefined) this.#stopWatching = watchTlsFiles(tls, (options) => (server as HttpsServer).setSecureContext(options), this.#logger);
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
    return [`${this.#config.tls ? 'https' : 'http'}://${host}:${address.port}`];
  }

  shutdown(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return Promise.resolve();
    this.#server = undefined;
    this.#stopWatching?.();
    this.#closing = true;
    return new Promise((resolve) => {
      // In-flight requests finish; idle keep-alive connections are closed now, busy ones once they answer.
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  }
}
