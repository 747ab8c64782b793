// The OTLP/HTTP listener: a Node HTTP server handing every request to the shared handler, which reads
// the body straight from Node's IncomingMessage, and writing its reply with the shared writer.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IngestConsumer } from '../../pipeline/component.ts';
import { StartupError } from '../../pipeline/errors.ts';
import type { Logger } from '../../pipeline/log.ts';
import type { Authenticate } from '../../pipeline/auth.ts';
import { Cors } from '../common/cors.ts';
import { sendReply } from '../common/reply-writer.ts';
import { isServableTarget } from '../common/request-target.ts';
import { encodeStatusJson, GrpcCode } from '../../codec/otlp/index.ts';
import type { OtlpHttpProtocolConfig } from './config.ts';
import { createOtlpHttpHandler, type OtlpHttpHandler, type OtlpHttpReply } from './http-handler.ts';
import { matchOtlpPath } from './paths.ts';
import { secureContextOptions, watchTlsFiles } from '../common/tls.ts';
import { parseEndpoint, warnIfOpen } from '../common/endpoint.ts';

const NOT_FOUND: OtlpHttpReply = {
  status: 404, body: encodeStatusJson(GrpcCode.UNIMPLEMENTED, 'not found: use POST /v1/traces'), headers: { 'content-type': 'application/json' },
};
const INTERNAL: OtlpHttpReply = {
  status: 500, body: encodeStatusJson(GrpcCode.INTERNAL, 'internal error'), headers: { 'content-type': 'application/json' },
};

const JSON_TYPE = 'application/json';

export class OtlpHttpServer {
  readonly #config: OtlpHttpProtocolConfig;
  readonly #logger: Logger;
  readonly #handler: OtlpHttpHandler;
  readonly #cors: Cors;
  #server: Server | undefined;
  /** Stops the check of the TLS files for a renewal (set while serving HTTPS). */
  #stopWatching: (() => void) | undefined;

  constructor(config: OtlpHttpProtocolConfig, consumer: IngestConsumer, logger: Logger, authenticate: Authenticate = undefined) {
    this.#config = config;
    this.#logger = logger;
    this.#cors = new Cors(config.cors);
    warnIfOpen(config.endpoint, authenticate !== undefined, logger, 'otlp receiver (http)');
    this.#handler = createOtlpHttpHandler({
      consumer, logger, maxRequestBodySize: config.max_request_body_size, maxSpansPerRequest: config.max_spans_per_request, authenticate,
    });
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
    const { host, port } = parseEndpoint(this.#config.endpoint);
    const listener = (incoming: IncomingMessage, outgoing: ServerResponse) => void this.#serve(incoming, outgoing, host);
    const tls = this.#config.tls;
    const server = tls === undefined ? createServer(listener) : createHttpsServer(secureContextOptions(tls), listener);
    if (tls !== undefined) this.#stopWatching = watchTlsFiles(tls, (options) => (server as HttpsServer).setSecureContext(options), this.#logger);
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
    return `${this.#config.tls ? 'https' : 'http'}://${host}:${address.port}`;
  }

  shutdown(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return Promise.resolve();
    this.#server = undefined;
    this.#stopWatching?.();
    return new Promise((resolve) => {
      // In-flight requests finish; idle keep-alive connections close now.
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  }
}
