// API keys (ingest-api.md §2.4): `Authorization: ApiKey <key>` or `Bearer <key>`, scheme case-insensitive.
// Keys are compared as SHA-256 digests with timingSafeEqual, so the comparison takes the same time
// whatever the presented key's length or content.
import { createHash, timingSafeEqual } from 'node:crypto';

const CREDENTIAL = /^(?:apikey|bearer) +(\S(?:.*\S)?)\s*$/i;

function digest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** Returns a check for an `Authorization` header value; undefined when auth is off (no keys). */
export function apiKeyCheck(keys: readonly string[]): ((authorization: string | undefined) => boolean) | undefined {
  if (keys.length === 0) return undefined;
  const accepted = keys.map(digest);
  return (authorization) => {
    if (authorization === undefined) return false;
    const m = CREDENTIAL.exec(authorization);
    if (!m) return false;
    const presented = digest(m[1]);
    let ok = false;
    // Every key is compared, so the time does not tell which one matched.
    for (const key of accepted) if (timingSafeEqual(key, presented)) ok = true;
    return ok;
  };
}
