// Content-Type and Content-Encoding of a tracing API request (ingest-api.md §2.4), checked from the
// headers alone, before the body is read.
import type { IncomingHttpHeaders } from 'node:http';
import { parseContentEncoding, type Coding } from '../common/request-body.ts';
import { detailReply, type Reply } from './replies.ts';

export type { Coding };

/** `application/json` or `application/<x>+json`, parameters allowed, `charset` (if any) utf-8. */
export function isJsonContentType(value: string): boolean {
  const semi = value.indexOf(';');
  const type = (semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase();
  if (type !== 'application/json' && !/^application\/[!#$%&'*.^_`|~0-9a-z-]+\+json$/.test(type)) return false;
  if (semi < 0) return true;
  for (const param of value.slice(semi + 1).split(';')) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    if (param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    if (charset !== 'utf-8') return false;
  }
  return true;
}

/** The codings to undo, or the 415 answer. A missing Content-Type is read as JSON (as FastAPI does). */
export function checkTransport(headers: IncomingHttpHeaders): Coding[] | Reply {
  const type = headers['content-type'];
  if (type !== undefined && type !== '' && !isJsonContentType(type)) {
    return detailReply(415, `Unsupported Content-Type: ${type}`);
  }
  const encoding = headers['content-encoding'];
  if (encoding === undefined) return [];
  const codings = parseContentEncoding(encoding);
  if (codings === undefined) return detailReply(415, `Unsupported Content-Encoding: ${encoding}`);
  return codings;
}
