// Content-Type and Content-Encoding of a tracing API request (ingest-api.md §2.4), checked from the
// headers alone, before the body is read.
import type { IncomingHttpHeaders } from 'node:http';
import { detailReply, type Reply } from './replies.ts';

/** A decoding step, in the order the sender applied it. */
export type Coding = 'gzip' | 'deflate' | 'zstd';

const CODINGS: Record<string, Coding | null> = {
  identity: null,
  gzip: 'gzip',
  'x-gzip': 'gzip',
  deflate: 'deflate',
  zstd: 'zstd',
};

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

/** The codings of a `Content-Encoding` value in the order applied; undefined when one is unknown. */
export function parseContentEncoding(value: string): Coding[] | undefined {
  const codings: Coding[] = [];
  for (const token of value.split(',')) {
    const name = token.trim().toLowerCase();
    if (name === '') continue;
    const coding = CODINGS[name];
    if (coding === undefined || !Object.hasOwn(CODINGS, name)) return undefined;
    if (coding !== null) codings.push(coding);
  }
  return codings;
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
