// Which requests both HTTP receivers answer straight from Node's `http` server rather than through
// Hono and @hono/node-server (docs/decisions/0410), and the one thing the adapter does around a request
// that such an answer must still do: stop reading a body nobody will use.
//
// The adapter builds a Request and a Response around each exchange and writes the answer through its
// own header handling; our handlers read Node's IncomingMessage and return plain replies, so for them
// that is pure overhead per request. Before calling the handler the adapter checks the request target
// and the Host header (a 400 when they do not make a URL). A direct answer is only taken for requests
// it would pass unchanged; every other request still goes through Hono, so its answer stays the
// adapter's.
import type { IncomingMessage, ServerResponse } from 'node:http';

const HOST_NAME = /^[a-z0-9._-]+$/;
const PORT = /^[1-9]\d{3,4}$/;

/**
 * A Host the adapter takes as it is, without parsing a URL (which may reject or rewrite other forms):
 * lowercase name characters, and no port or a port from 1000 to 59999 written without leading zeros.
 */
function isPlainHost(host: string): boolean {
  const colon = host.indexOf(':');
  if (colon === -1) return HOST_NAME.test(host);
  const port = host.slice(colon + 1);
  return HOST_NAME.test(host.slice(0, colon)) && PORT.test(port) && Number(port) < 60_000;
}

/**
 * POST with an origin-form target (a path from `/`, no backslash) and a plain Host: answered directly.
 * Other methods keep Hono (its HEAD handling drops the body and Content-Length).
 */
export function isDirectRequest(incoming: IncomingMessage): boolean {
  if (incoming.method !== 'POST') return false;
  const url = incoming.url;
  if (url === undefined || url.charCodeAt(0) !== 0x2f || url.includes('\\')) return false;
  const host = incoming.headers.host;
  return host !== undefined && isPlainHost(host);
}

/** An unread body is discarded up to this many bytes, for this long; then the connection is closed. */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;
const DRAIN_TIMEOUT_MS = 500;

/**
 * Called after an answer was written: when the body was not read to its end (an early 4xx or 503),
 * the rest is read and dropped once the answer is out, so a keep-alive connection can carry the next
 * request, but only within a byte and time budget, as the adapter does for the routes it serves.
 */
export function discardUnreadBody(incoming: IncomingMessage, outgoing: ServerResponse): void {
  if (incoming.readableEnded) return;
  outgoing.once('close', () => {
    if (incoming.readableEnded || incoming.destroyed) return;
    let received = 0;
    const closeConnection = () => {
      stop();
      const socket = incoming.socket;
      if (socket !== null && !socket.destroyed) socket.destroySoon();
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > DRAIN_LIMIT_BYTES) closeConnection();
    };
    const timer = setTimeout(closeConnection, DRAIN_TIMEOUT_MS);
    timer.unref();
    const stop = () => {
      clearTimeout(timer);
      incoming.off('data', onData);
      incoming.off('end', stop);
      incoming.off('error', stop);
    };
    incoming.on('data', onData);
    incoming.on('end', stop);
    incoming.on('error', stop);
    incoming.resume();
  });
}
