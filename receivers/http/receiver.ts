// The `http` receiver: a Node HTTP server handing every request to TracingApiHandler and writing its
// reply with the shared writer. Routing is done by the handler's own path normalisation (routes.ts), and
// the body is read straight from Node's IncomingMessage as Buffers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Receiver, ReceiverContext } from '../../pipeline/component.ts';
import { authenticateFor, KeySet, type Authenticate } from '../../pipeline/auth.ts';
import type { Logger } from '../../pipeline/log.ts';
import { Cors } from '../common/cors.ts';
import { warnIfOpen } from '../common/endpoint.ts';
import { HttpListener } from '../common/listener.ts';
import { sendReply } from '../common/reply-writer.ts';
import { isServableTarget } from '../common/request-target.ts';
import type { HttpReceiverConfig } from './config.ts';
import { TracingApiHandler } from './handler.ts';
import { createOtlpRoute } from './otlp-route.ts';
import type { ReadSource } from './read-routes.ts';
import { storeReadsOf } from '../../exporters/store/store-exporter.ts';
import { StartupError } from '../../pipeline/errors.ts';
import { detailReply, INTERNAL_ERROR, JSON_CONTENT_TYPE, type Reply } from './replies.ts';

const BAD_REQUEST = detailReply(400, 'Bad Request');

/** The `api_keys` shorthand's check. */
function keySetCheck(keys: KeySet): Authenticate {
  return (authorization) => keys.authenticate(authorization);
}

export class HttpReceiver implements Receiver {
  readonly #logger: Logger;
  readonly #handler: TracingApiHandler;
  readonly #cors: Cors;
  readonly #listener: HttpListener;
  #closing = false;
  /** What start() refuses with, found while building. */
  #startProblem: string | undefined;

  constructor(config: HttpReceiverConfig, context: ReceiverContext) {
    const { consumer, logger } = context;
    this.#logger = logger;
    this.#cors = new Cors(config.cors);
    const authenticate = config.auth !== undefined
      ? authenticateFor(config.auth, context.authenticator)
      : config.api_keys.length > 0 ? keySetCheck(new KeySet(config.api_keys.map((key) => ({ key })))) : undefined;
    const metrics = context.metrics?.('http');
    const reads = this.#readSource(config, context);
    this.#handler = new TracingApiHandler(config, consumer, createOtlpRoute({ config, consumer, logger, metrics }), authenticate, metrics, reads);
    warnIfOpen(config.endpoint, authenticate !== undefined, logger, 'http receiver');
    this.#listener = new HttpListener({
      endpoint: config.endpoint, tls: config.tls, timeouts: config, name: 'http receiver',
      errorBody: (_status, message) => JSON.stringify({ detail: message }),
    }, (incoming, outgoing, host) => void this.#serve(incoming, outgoing, host), logger);
  }

  /** The read routes over the store exporter `read.store` names (the config loader resolved it), if any. */
  #readSource(config: HttpReceiverConfig, context: ReceiverContext): ReadSource | undefined {
    const id = config.read?.store;
    if (id === undefined) return undefined;
    // Asked per request: a reload replaces the store exporter while this receiver keeps listening.
    const reads = () => storeReadsOf(context.exporter?.(id));
    // The config loader checked the id; without a graph (a receiver built by hand) there is nothing to read.
    if (reads() === undefined) {
      this.#startProblem = `http receiver: read.store "${id}" is not a running store exporter (list it in a pipeline's exporters)`;
      return undefined;
    }
    return { reads: () => reads()?.(), storeFed: () => context.feeds?.(id) ?? true };
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
    if (this.#startProblem !== undefined) return Promise.reject(new StartupError(this.#startProblem));
    return this.#listener.start();
  }

  takeOver(previous: Receiver): boolean {
    return this.#startProblem === undefined && previous instanceof HttpReceiver && this.#listener.takeOver(previous.#listener);
  }

  endpoints(): string[] {
    const url = this.#listener.url();
    return url === undefined ? [] : [url];
  }

  shutdown(): Promise<void> {
    this.#closing = true;
    return this.#listener.shutdown();
  }
}
