// Which route a request is for (ingest-api.md §1): path normalisation, then a lookup. Plain string work,
// no router: the table is small and fixed, and the aliases (`/api` prefixes, `/preview`, the optional
// trailing slash) are easier to get exactly right as a normalisation step than as router patterns.
import { LANGFUSE_PATH } from '../otlp/paths.ts';

export type WriteRoute = 'ingest' | 'traces' | 'simple';

export type RouteMatch =
  /** One of the tracing write routes, method POST. */
  | { kind: 'write'; route: WriteRoute }
  /** `/otlp/v1/traces` (or Langfuse's `/public/otel/v1/traces`), any method: the OTLP/HTTP handler decides. */
  | { kind: 'otlp'; path: string }
  /** §1.3: answered 501 after auth; `detail` names the method and route. */
  | { kind: 'unavailable'; detail: string }
  | { kind: 'not_found' }
  | { kind: 'method_not_allowed'; allow: string };

/** Strips `/api` segments, one `/preview`, one trailing slash (§1.1). `rawUrl` is the request target. */
export function normalisePath(rawUrl: string): string {
  const q = rawUrl.indexOf('?');
  let path = q < 0 ? rawUrl : rawUrl.slice(0, q);
  while (path.startsWith('/api') && (path.length === 4 || path.charCodeAt(4) === 0x2f)) {
    path = path.length === 4 ? '/' : path.slice(4);
  }
  if (path.startsWith('/preview') && (path.length === 8 || path.charCodeAt(8) === 0x2f)) {
    path = path.length === 8 ? '/' : path.slice(8);
  }
  if (path.length > 1 && path.charCodeAt(path.length - 1) === 0x2f) path = path.slice(0, -1);
  return path;
}

const WRITE_ROUTES: Record<string, WriteRoute> = {
  '/tracing/spans/ingest': 'ingest',
  '/tracing/traces': 'traces',
  '/simple/traces': 'simple',
};

const QUERY_ROUTES = new Set([
  '/tracing/spans/query',
  '/tracing/spans/analytics',
  '/tracing/analytics/query',
  '/tracing/sessions/query',
  '/tracing/users/query',
]);

const TRACE_BY_ID = ['GET', 'PUT', 'PATCH', 'DELETE'];
const SIMPLE_BY_ID = ['GET', 'PATCH', 'DELETE'];

function writeOnly(method: string, path: string): string {
  return `${method} ${path} is not available: tracehop is write-only and no trace store is configured`;
}

/** One non-empty path segment after `prefix` (a `{trace_id}`), or undefined. */
function idAfter(path: string, prefix: string): string | undefined {
  if (!path.startsWith(prefix) || path.length === prefix.length) return undefined;
  const id = path.slice(prefix.length);
  return id.includes('/') ? undefined : id;
}

export function matchRoute(method: string, rawUrl: string): RouteMatch {
  const path = normalisePath(rawUrl);

  const write = WRITE_ROUTES[path];
  if (write !== undefined) {
    return method === 'POST' ? { kind: 'write', route: write } : { kind: 'method_not_allowed', allow: 'POST' };
  }
  if (path === '/otlp/v1/traces' || path === LANGFUSE_PATH) return { kind: 'otlp', path };

  if (QUERY_ROUTES.has(path)) {
    return method === 'POST'
      ? { kind: 'unavailable', detail: writeOnly(method, path) }
      : { kind: 'method_not_allowed', allow: 'POST' };
  }
  if (idAfter(path, '/tracing/traces/') !== undefined) {
    return TRACE_BY_ID.includes(method)
      ? { kind: 'unavailable', detail: writeOnly(method, path) }
      : { kind: 'method_not_allowed', allow: TRACE_BY_ID.join(', ') };
  }
  if (path === '/simple/traces/query' && method === 'POST') {
    return { kind: 'unavailable', detail: writeOnly(method, path) };
  }
  if (idAfter(path, '/simple/traces/') !== undefined) {
    // `/simple/traces/query` also matches `{trace_id}` for the other methods, as in the backend's router.
    const allow = path === '/simple/traces/query' ? [...SIMPLE_BY_ID, 'POST'] : SIMPLE_BY_ID;
    return SIMPLE_BY_ID.includes(method)
      ? { kind: 'unavailable', detail: writeOnly(method, path) }
      : { kind: 'method_not_allowed', allow: allow.join(', ') };
  }
  if (isNewerRouter(path, '/traces') || isNewerRouter(path, '/spans')) {
    const isWrite = method === 'POST' && (path === '/traces' || path === '/traces/ingest');
    return {
      kind: 'unavailable',
      detail: isWrite
        ? `${method} ${path} is not available in tracehop: send spans to POST /tracing/spans/ingest`
        : writeOnly(method, path),
    };
  }
  return { kind: 'not_found' };
}

/** `/traces`, `/traces/...`: the backend's newer routers (§1.3). */
function isNewerRouter(path: string, root: string): boolean {
  return path === root || path.startsWith(root + '/');
}
