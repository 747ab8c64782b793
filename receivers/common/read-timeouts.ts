// How long an HTTP receiver waits for a request to arrive (`read_header_timeout`, `read_timeout`, the
// Collector's confighttp names), so a client that opens a connection and sends nothing, or sends its
// headers and then trickles or stops, holds a socket for a bounded time. Node's own defaults are 60 s
// for the headers and 5 minutes for the whole request, checked only every 30 s.
//
// On expiry Node answers 408 and closes the connection. Node's answer has no body; the receiver's
// `clientError` listener answers instead, in the receiver's error format, and does the same for a
// request that is not HTTP/1.1 at all (400, 431 for oversized headers).
import type { ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { JsonSchema } from '../../pipeline/component.ts';
import { duration } from '../../pipeline/schema.ts';

export interface ReadTimeouts {
  /** Milliseconds from the connection (or the end of the previous request) to the last header byte. */
  read_header_timeout: number;
  /** Milliseconds from the first byte of a request to the last byte of its body; 0: no limit. */
  read_timeout: number;
}

export const READ_TIMEOUT_DEFAULTS: ReadTimeouts = { read_header_timeout: 10_000, read_timeout: 60_000 };

export const readTimeoutProperties: Record<string, JsonSchema> = {
  read_header_timeout: duration('10s'),
  read_timeout: duration('1m'),
};

/** Node checks open requests against the timeouts on an interval: often enough to keep them close. */
const MAX_CHECK_INTERVAL_MS = 1000;
const MIN_CHECK_INTERVAL_MS = 50;

/** The node:http server options for `timeouts`. The header timeout never exceeds `read_timeout`. */
export function serverTimeoutOptions(timeouts: ReadTimeouts): ServerOptions {
  const request = timeouts.read_timeout;
  const headers = request > 0 ? Math.min(timeouts.read_header_timeout, request) : timeouts.read_header_timeout;
  const shortest = Math.min(...[headers, request].filter((t) => t > 0), MAX_CHECK_INTERVAL_MS * 4);
  return {
    headersTimeout: headers,
    requestTimeout: request,
    connectionsCheckingInterval: Math.max(MIN_CHECK_INTERVAL_MS, Math.floor(shortest / 4)),
  };
}

/** The body of an error answer written outside a request handler: JSON text. */
export type ErrorBody = (status: number, message: string) => string;

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** The answer to a `clientError` (a timeout, or bytes that are not an HTTP request). */
export function clientErrorAnswer(error: NodeJS.ErrnoException, timeouts: ReadTimeouts): { status: number; message: string } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      message: `the request did not arrive within read_header_timeout (${timeouts.read_header_timeout} ms) or read_timeout (${timeouts.read_timeout} ms)`,
    };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: 'the request headers are too large' };
  return { status: 400, message: `the request is not valid HTTP/1.1 (${error.code ?? 'parse error'})` };
}

/**
 * Writes the answer on the raw socket and closes it. `responding`: a response already started on this
 * connection, in which case the connection is only closed.
 */
export function answerClientError(socket: Socket, status: number, body: string, responding: boolean): void {
  if (responding || !socket.writable || socket.destroyed) {
    socket.destroy();
    return;
  }
  const head = `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
  socket.end(head + body);
}
