// The HTTP or HTTPS listener of both HTTP receivers (the tracing API, OTLP/HTTP): binding with a clear
// start-up error, TLS with certificate renewal (tls.ts), the address for the start-up log line, and a
// shutdown that lets requests in flight finish, and the read timeouts (read-timeouts.ts). A reload may
// hand a listening server to the listener that replaces this one (takeOver): the socket stays open.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { StartupError } from '../../pipeline/errors.ts';
import type { Logger } from '../../pipeline/log.ts';
import { parseEndpoint } from './endpoint.ts';
import { secureContextOptions, watchTlsFiles, type TlsConfig } from './tls.ts';
import { answerClientError, clientErrorAnswer, serverTimeoutOptions, type ErrorBody, type ReadTimeouts } from './read-timeouts.ts';

export interface ListenerOptions {
  endpoint: string;
  tls: TlsConfig | undefined;
  timeouts: ReadTimeouts;
  /** The receiver's error body, for answers written outside a request (a read timeout). */
  errorBody: ErrorBody;
  /** `http receiver`, `otlp receiver`: how errors name it. */
  name: string;
  /** After the endpoint in a start-up error: '' or ` (http)`. */
  transport?: string;
}

/** Answers one request; `defaultHost` is the listening host, for requests whose target has none. */
export type RequestHandler = (incoming: IncomingMessage, outgoing: ServerResponse, defaultHost: string | undefined) => void;

export class HttpListener {
  readonly #endpoint: string;
  readonly #tls: TlsConfig | undefined;
  readonly #handle: RequestHandler;
  readonly #logger: Logger;
  /** `http receiver`, `otlp receiver`: how errors name it. */
  readonly #name: string;
  /** After the endpoint in a start-up error: '' or ` (http)`. */
  readonly #transport: string;
  #server: Server | undefined;
  /** Stops the check of the TLS files for a renewal (set while serving HTTPS). */
  #stopWatching: (() => void) | undefined;

  readonly #timeouts: ReadTimeouts;
  readonly #errorBody: ErrorBody;
  /**
   * The response of the request each connection is serving: a read timeout then only closes it. A
   * takeOver hands it on with the server, since the server's `clientError` then reaches the new listener
   * for connections whose replies the previous one is still writing.
   */
  #responses = new WeakMap<Socket, ServerResponse>();

  constructor(options: ListenerOptions, handle: RequestHandler, logger: Logger) {
    this.#transport = options.transport ?? '';
    this.#endpoint = options.endpoint;
    this.#tls = options.tls;
    this.#timeouts = options.timeouts;
    this.#errorBody = options.errorBody;
    this.#handle = handle;
    this.#logger = logger;
    this.#name = options.name;
  }

  #onClientError(error: NodeJS.ErrnoException, socket: Socket): void {
    const response = this.#responses.get(socket);
    const responding = response !== undefined && response.headersSent && !response.writableFinished;
    const { status, message } = clientErrorAnswer(error, this.#timeouts);
    answerClientError(socket, status, this.#errorBody(status, message), responding || error.code === 'ECONNRESET');
  }

  /** This listener's answer to every request of its server. */
  #requestListener(): (incoming: IncomingMessage, outgoing: ServerResponse) => void {
    const { host } = parseEndpoint(this.#endpoint);
    return (incoming, outgoing) => {
      this.#responses.set(incoming.socket, outgoing);
      this.#handle(incoming, outgoing, host);
    };
  }

  /** Binds; rejects with StartupError (port in use, address not available). */
  start(): Promise<void> {
    const { host, port } = parseEndpoint(this.#endpoint);
    const listener = this.#requestListener();
    const tls = this.#tls;
    const timeouts = serverTimeoutOptions(this.#timeouts);
    // node:http and node:https come from process.getBuiltinModule, not from an ESM import: importing
    // node:http as an ES module builds its namespace from every export and so reads the lazy ones
    // (WebSocket, CloseEvent, MessageEvent), which load undici, http2, worker_threads and zlib, several
    // MiB resident a listener never uses (docs/operating.md, "Memory and V8 flags"). node:https (TLS)
    // is loaded only by a listener that has TLS.
    const server = tls === undefined
      ? process.getBuiltinModule('node:http').createServer(timeouts, listener)
      : process.getBuiltinModule('node:https').createServer({ ...secureContextOptions(tls), ...timeouts }, listener);
    if (tls !== undefined) this.#stopWatching = watchTlsFiles(tls, (options) => (server as HttpsServer).setSecureContext(options), this.#logger);
    return new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        this.#stopWatching?.();
        reject(new StartupError(`${this.#name}: cannot listen on ${this.#endpoint}${this.#transport}: ${error.code ?? error.message}`, { cause: error }));
      };
      server.once('error', onError);
      server.listen(port, host, () => {
        server.off('error', onError);
        this.#serve(server);
        resolve();
      });
    });
  }

  /**
   * Serves on `previous`'s listening server instead of binding one (a reload replaced the receiver and
   * its endpoint and TLS settings did not change): from now on this listener answers the server's
   * requests, with its own timeouts, and `previous` owns nothing. Requests `previous` is answering finish
   * there. False, nothing changed, when the server cannot be handed over.
   */
  takeOver(previous: HttpListener): boolean {
    const server = previous.#server;
    if (server === undefined || previous.#endpoint !== this.#endpoint || JSON.stringify(previous.#tls) !== JSON.stringify(this.#tls)) return false;
    previous.#server = undefined;
    this.#stopWatching = previous.#stopWatching;
    previous.#stopWatching = undefined;
    this.#responses = previous.#responses;
    server.removeAllListeners('request');
    server.on('request', this.#requestListener());
    this.#serve(server);
    return true;
  }

  /**
   * Makes `server` this listener's: its client errors and server errors reach this listener, and its
   * read timeouts become this listener's. The interval at which Node checks open requests against the
   * timeouts (`connectionsCheckingInterval`) is fixed when the server is created: after a reload that
   * took the server over with a shorter `read_timeout` or `read_header_timeout`, a timeout may fire up to
   * the first configuration's interval late (at most 1 s, see read-timeouts.ts).
   */
  #serve(server: Server): void {
    server.removeAllListeners('clientError');
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => this.#onClientError(error, socket));
    server.removeAllListeners('error');
    server.on('error', (error) => this.#logger.error(`${this.#name}${this.#transport} server error`, { error }));
    const timeouts = serverTimeoutOptions(this.#timeouts);
    server.headersTimeout = timeouts.headersTimeout!;
    server.requestTimeout = timeouts.requestTimeout!;
    this.#server = server;
  }

  /** `http://127.0.0.1:4319` (or https), once listening. */
  url(): string | undefined {
    const address = this.#server?.address() as AddressInfo | null | undefined;
    if (!address) return undefined;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `${this.#tls ? 'https' : 'http'}://${host}:${address.port}`;
  }

  /** Stops accepting; requests in flight finish; idle keep-alive connections close now. */
  shutdown(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return Promise.resolve();
    this.#server = undefined;
    this.#stopWatching?.();
    return new Promise((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  }
}
