// Which route a request is for (ingest-api.md §1): path normalisation, then a lookup. Plain string work,
// no router: the table is small and fixed, and the aliases (`/api` prefixes, `/preview`, the optional
// trailing slash) are easier to get exactly right as a normalisation step than as router patterns.
import { LANGFUSE_PATH } from '../otlp/paths.ts';

export type WriteRoute = 'ingest' | 'traces' | 'simple';

/**
 * The routes served from the trace store (read-api.md §1.2) that tracehop answers so far: the tracing
 * router's (`/tracing/...`) and the newer `/traces` router's (`traces_*`), which answer in other shapes.
 */
export type ReadRoute =
  | 'get_trace' | 'delete_trace' | 'query' | 'traces_get' | 'traces_delete' | 'traces_list'
  /** §8: the simple-trace view, its edit (also `PATCH /tracing/traces/{id}`), delete and query. */
  | 'simple_get' | 'simple_patch' | 'simple_delete' | 'simple_query'
  /** §7: the structured queries of the newer routers. */
  | 'spans_query' | 'traces_query';

export type RouteMatch =
  /** One of the tracing write routes, method POST. */
  | { kind: 'write'; route: WriteRoute }
  /** `/otlp/v1/traces` (or Langfuse's `/public/otel/v1/traces`), any method: the OTLP/HTTP handler decides. */
  | { kind: 'otlp'; path: string }
  /** read-api.md §1.2, only with a store: `id` is the raw `{trace_id}` segment (not decoded yet). */
  | { kind: 'read'; route: ReadRoute; id?: string }
  /** `GET /` with a store: the page to look at traces (page/trace-page.ts). */
  | { kind: 'page' }
  /** §1.3: answered 501 after auth; `detail` names the method and route. */
  | { kind: 'unavailable'; detail: string }
  | { kind: 'not_found' }
  /** `detail`: when not the usual `Method Not Allowed` (read-api.md §1.4's `GET /traces/query`). */
  | { kind: 'method_not_allowed'; allow: string; detail?: string };

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
const SIMPLE_ROUTES: Record<string, ReadRoute> = { GET: 'simple_get', PATCH: 'simple_patch', DELETE: 'simple_delete' };

function writeOnly(method: string, path: string): string {
  return `${method} ${path} is not available: tracehop is write-only and no trace store is configured`;
}

function notServed(method: string, path: string): string {
  return `${method} ${path} is not available: tracehop's trace store does not serve this route`;
}

/** One non-empty path segment after `prefix` (a `{trace_id}`), or undefined. */
function idAfter(path: string, prefix: string): string | undefined {
  if (!path.startsWith(prefix) || path.length === prefix.length) return undefined;
  const id = path.slice(prefix.length);
  return id.includes('/') ? undefined : id;
}

/** `withStore`: a trace store serves this receiver's reads (read-api.md §10); without one every read is 501. */
export function matchRoute(method: string, rawUrl: string, withStore = false): RouteMatch {
  const path = normalisePath(rawUrl);
  const unavailable = withStore ? notServed : writeOnly;

  const write = WRITE_ROUTES[path];
  if (write !== undefined) {
    return method === 'POST' ? { kind: 'write', route: write } : { kind: 'method_not_allowed', allow: 'POST' };
  }
  if (path === '/otlp/v1/traces' || path === LANGFUSE_PATH) return { kind: 'otlp', path };
  // Without a store there is nothing to show: `/` stays unknown (404).
  if (withStore && path === '/') {
    return method === 'GET' || method === 'HEAD' ? { kind: 'page' } : { kind: 'method_not_allowed', allow: 'GET, HEAD' };
  }

  if (QUERY_ROUTES.has(path)) {
    if (method !== 'POST') return { kind: 'method_not_allowed', allow: 'POST' };
    if (withStore && path === '/tracing/spans/query') return { kind: 'read', route: 'query' };
    return { kind: 'unavailable', detail: unavailable(method, path) };
  }
  const traceId = idAfter(path, '/tracing/traces/');
  if (traceId !== undefined) {
    if (!TRACE_BY_ID.includes(method)) return { kind: 'method_not_allowed', allow: TRACE_BY_ID.join(', ') };
    if (withStore && method === 'GET') return { kind: 'read', route: 'get_trace', id: traceId };
    if (withStore && method === 'DELETE') return { kind: 'read', route: 'delete_trace', id: traceId };
    if (withStore && method === 'PATCH') return { kind: 'read', route: 'simple_patch', id: traceId };
    return { kind: 'unavailable', detail: unavailable(method, path) };
  }
  if (path === '/simple/traces/query' && method === 'POST') {
    return withStore ? { kind: 'read', route: 'simple_query' } : { kind: 'unavailable', detail: unavailable(method, path) };
  }
  const simpleId = idAfter(path, '/simple/traces/');
  if (simpleId !== undefined) {
    // `/simple/traces/query` also matches `{trace_id}` for the other methods, as in the backend's router.
    const allow = path === '/simple/traces/query' ? [...SIMPLE_BY_ID, 'POST'] : SIMPLE_BY_ID;
    if (!SIMPLE_BY_ID.includes(method)) return { kind: 'method_not_allowed', allow: allow.join(', ') };
    if (!withStore) return { kind: 'unavailable', detail: unavailable(method, path) };
    return { kind: 'read', route: SIMPLE_ROUTES[method], id: simpleId };
  }
  if (withStore && isNewerRouter(path, '/traces')) return matchTracesRouter(method, path);
  if (withStore && path === '/spans/query') {
    return method === 'POST' ? { kind: 'read', route: 'spans_query' } : { kind: 'method_not_allowed', allow: 'POST' };
  }
  if (isNewerRouter(path, '/traces') || isNewerRouter(path, '/spans')) {
    const isWrite = method === 'POST' && (path === '/traces' || path === '/traces/ingest');
    return {
      kind: 'unavailable',
      detail: isWrite
        ? `${method} ${path} is not available in tracehop: send spans to POST /tracing/spans/ingest`
        : unavailable(method, path),
    };
  }
  return { kind: 'not_found' };
}

const TRACES_BY_ID = ['GET', 'PUT', 'DELETE'];
const TRACES_ROOT = ['GET', 'POST'];

/**
 * The `/traces` router with a store (read-api.md §1.2 - §1.4): `GET /traces/` (ids in the query string),
 * `GET` and `DELETE /traces/{trace_id}`, `POST /traces/query` (§7); `PUT /traces/{id}`, `POST /traces/`
 * and `/traces/ingest` stay 501. `GET /traces/query` and `/traces/ingest` (any case) are Agenta's own 405.
 */
function matchTracesRouter(method: string, path: string): RouteMatch {
  if (path === '/traces') {
    if (!TRACES_ROOT.includes(method)) return { kind: 'method_not_allowed', allow: TRACES_ROOT.join(', ') };
    if (method === 'GET') return { kind: 'read', route: 'traces_list' };
    return { kind: 'unavailable', detail: `${method} ${path} is not available in tracehop: send spans to POST /tracing/spans/ingest` };
  }
  const id = idAfter(path, '/traces/');
  if (id === undefined) return { kind: 'unavailable', detail: notServed(method, path) };
  const named = id.toLowerCase();
  if ((named === 'query' || named === 'ingest') && method === 'GET') {
    return { kind: 'method_not_allowed', allow: 'POST', detail: `GET /traces/${named} is not supported.` };
  }
  if (method === 'POST' && id === 'ingest') {
    return { kind: 'unavailable', detail: `${method} ${path} is not available in tracehop: send spans to POST /tracing/spans/ingest` };
  }
  if (method === 'POST' && id === 'query') return { kind: 'read', route: 'traces_query' };
  // As in the backend's router, `query` and `ingest` are trace ids for the other methods (and answer 400).
  if (!TRACES_BY_ID.includes(method)) return { kind: 'method_not_allowed', allow: TRACES_BY_ID.join(', ') };
  if (method === 'GET') return { kind: 'read', route: 'traces_get', id };
  if (method === 'DELETE') return { kind: 'read', route: 'traces_delete', id };
  return { kind: 'unavailable', detail: notServed(method, path) };
}

/** `/traces`, `/traces/...`: the backend's newer routers (§1.3). */
function isNewerRouter(path: string, root: string): boolean {
  return path === root || path.startsWith(root + '/');
}
