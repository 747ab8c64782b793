// Which requests both HTTP receivers answer 400 before routing: a request target and Host that do not
// make a URL. These answers predate the single serving path (an HTTP adapter gave them) and are kept.
import type { IncomingMessage } from 'node:http';

/** A Host taken as it is: lowercase name characters, no port or a port from 1000 to 59999. */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/** A backslash in the path (before any query) is refused rather than read as a slash. */
function backslashInPath(target: string): boolean {
  const backslash = target.indexOf('\\');
  if (backslash === -1) return false;
  const query = target.indexOf('?');
  return query === -1 || backslash < query;
}

/**
 * Whether the target (origin-form with the Host, else `defaultHost`; or absolute-form `http(s)://`)
 * makes a URL whose host is the Host sent.
 */
export function isServableTarget(incoming: IncomingMessage, defaultHost: string | undefined): boolean {
  const target = incoming.url ?? '';
  if (target.charCodeAt(0) !== 0x2f && (target.startsWith('http://') || target.startsWith('https://'))) {
    return !backslashInPath(target) && URL.canParse(target);
  }
  const host = incoming.headers.host || defaultHost;
  if (!host) return false;
  if (PLAIN_HOST.test(host)) return target === '' || (target.charCodeAt(0) === 0x2f && !backslashInPath(target));
  if (backslashInPath(target)) return false;
  let hostname: string;
  try {
    hostname = new URL(`http://${host}${target}`).hostname;
  } catch {
    return false;
  }
  return hostname.length === host.length || hostname === host.replace(/:\d+$/, '').toLowerCase();
}
