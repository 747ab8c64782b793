// Writing one whole answer of either HTTP receiver to Node's ServerResponse, for every request. Every
// answer's body is known in full before anything is written, so the headers go out in one `writeHead`
// with Content-Length already computed, and `end` puts the header block and a string body (or no body)
// into a single socket write.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../pipeline/log.ts';
import { discardUnreadBody } from './unread-body.ts';

export interface HttpReply {
  status: number;
  body: string | Uint8Array;
  /** Lowercase names; a `content-type` among them wins over the receiver's default. */
  headers?: Record<string, string>;
}

export interface ReplyOptions {
  contentType: string;
  /** Adds `connection: close` (while shutting down). */
  closing: boolean;
  /** False for a HEAD answer from a handler: its headers without Content-Length (Node drops the body). */
  withLength: boolean;
}

function writeReply(outgoing: ServerResponse, reply: HttpReply, options: ReplyOptions): void {
  const { headers, body } = reply;
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  // A flat [name, value, ...] list: Node takes it as is, with no header object to build and walk.
  const lines: Array<string | number> = ['content-type', headers?.['content-type'] ?? options.contentType];
  if (headers !== undefined) {
    for (const name in headers) if (name !== 'content-type') lines.push(name, headers[name]);
  }
  if (options.closing) lines.push('connection', 'close');
  if (options.withLength) lines.push('Content-Length', length);
  outgoing.writeHead(reply.status, lines);
  if (length === 0) outgoing.end();
  else outgoing.end(body);
}

/** Writes `reply`, then discards what is left of the request body. */
export function sendReply(
  incoming: IncomingMessage, outgoing: ServerResponse, reply: HttpReply, options: ReplyOptions, logger: Logger,
): void {
  try {
    writeReply(outgoing, reply, options);
    discardUnreadBody(incoming, outgoing);
  } catch (error) {
    // Our replies carry only valid headers; this is a bug, and the client gets no half answer.
    logger.error('writing the answer failed', { error, method: incoming.method, url: incoming.url });
    outgoing.destroy();
  }
}
