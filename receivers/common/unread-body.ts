// After an answer of either HTTP receiver: stop reading a body nobody will use, within a budget.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** An unread body is discarded up to this many bytes, for this long; then the connection is closed. */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;
const DRAIN_TIMEOUT_MS = 500;

/**
 * Called after an answer was written: when the body was not read to its end (an early 4xx or 503),
 * the rest is read and dropped once the answer is out, so a keep-alive connection can carry the next
 * request, but only within a byte and time budget, so a client cannot hold it open with a huge body.
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
