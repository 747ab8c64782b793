// Writing one whole answer of either HTTP receiver straight to Node's ServerResponse
// (docs/decisions/0410). Every answer's body is known in full before anything is written, so the
// headers go out in one `writeHead` with Content-Length already computed, and `end` puts the header
// block and a string body (or no body) into a single socket write; Node only splits them (a `writev`
// of two chunks) for a non-empty binary body, which the OTLP route sends only with a partial success
// or an error status.
import type { ServerResponse } from 'node:http';

/**
 * Writes `status`, `contentType`, the other `headers` (lowercase names; a `content-type` among them
 * wins over `contentType`), `connection: close` when `closing`, Content-Length and the body.
 */
export function writeReply(
  outgoing: ServerResponse,
  status: number,
  contentType: string,
  headers: Record<string, string> | undefined,
  body: string | Uint8Array,
  closing: boolean,
): void {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  // A flat [name, value, ...] list: Node takes it as is, with no header object to build and walk.
  const lines: Array<string | number> = ['content-type', headers?.['content-type'] ?? contentType];
  if (headers !== undefined) {
    for (const name in headers) if (name !== 'content-type') lines.push(name, headers[name]);
  }
  if (closing) lines.push('connection', 'close');
  lines.push('Content-Length', length);
  outgoing.writeHead(status, lines);
  if (length === 0) outgoing.end();
  else outgoing.end(body);
}
