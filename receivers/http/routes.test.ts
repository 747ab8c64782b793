import { describe, expect, it } from 'vitest';
import { matchRoute, normalisePath } from './routes.ts';
import { READ_ROUTES } from '../../test/helpers/store-fixture.ts';

describe('normalisePath (ingest-api.md §1.1)', () => {
  it.each([
    ['/api/api/tracing/spans/ingest', '/tracing/spans/ingest'],
    ['/api', '/'],
    ['/api/', '/'],
    ['/apis/tracing', '/apis/tracing'],
    ['/preview/tracing/traces/', '/tracing/traces'],
    ['/api/preview/tracing/traces', '/tracing/traces'],
    ['/preview/api/tracing/traces', '/api/tracing/traces'],
    ['/preview/preview/x', '/preview/x'],
    ['/previews/x', '/previews/x'],
    ['/tracing/traces/?a=/b', '/tracing/traces'],
    ['/tracing/traces//', '/tracing/traces/'],
    ['//tracing', '//tracing'],
  ])('%s -> %s', (raw, expected) => {
    expect(normalisePath(raw)).toBe(expected);
  });
});

describe('matchRoute', () => {
  it('serves the page on / with a store (GET, HEAD), and leaves / unknown without one', () => {
    expect(matchRoute('GET', '/?trace=abc', true)).toEqual({ kind: 'page' });
    expect(matchRoute('HEAD', '/api/', true)).toEqual({ kind: 'page' });
    expect(matchRoute('POST', '/', true)).toEqual({ kind: 'method_not_allowed', allow: 'GET, HEAD' });
    expect(matchRoute('GET', '/', false)).toEqual({ kind: 'not_found' });
    expect(matchRoute('GET', '/index.html', true)).toEqual({ kind: 'not_found' });
  });

  it('finds the write routes for POST only', () => {
    expect(matchRoute('POST', '/api/tracing/spans/ingest/')).toEqual({ kind: 'write', route: 'ingest' });
    expect(matchRoute('POST', '/preview/simple/traces')).toEqual({ kind: 'write', route: 'simple' });
    expect(matchRoute('GET', '/tracing/traces/')).toEqual({ kind: 'method_not_allowed', allow: 'POST' });
  });

  it('sends any method on /otlp/v1/traces to the OTLP route', () => {
    expect(matchRoute('PUT', '/api/otlp/v1/traces')).toEqual({ kind: 'otlp', path: '/otlp/v1/traces' });
    // Langfuse's SDKs send to {host}/api/public/otel/v1/traces.
    expect(matchRoute('POST', '/api/public/otel/v1/traces')).toEqual({ kind: 'otlp', path: '/public/otel/v1/traces' });
    expect(matchRoute('POST', '/public/otel/v1/traces/')).toEqual({ kind: 'otlp', path: '/public/otel/v1/traces' });
  });

  it('answers the by-id and query routes 501, and /simple/traces/query as an id for GET', () => {
    expect(matchRoute('GET', '/simple/traces/query').kind).toBe('unavailable');
    expect(matchRoute('POST', '/simple/traces/query').kind).toBe('unavailable');
    expect(matchRoute('PUT', '/simple/traces/query')).toEqual({ kind: 'method_not_allowed', allow: 'GET, PATCH, DELETE, POST' });
    expect(matchRoute('GET', '/tracing/traces/a/b')).toEqual({ kind: 'not_found' });
  });

  it('test 35: without a store every route of read-api.md §1.2 is 501; with one each is a read', () => {
    for (const [method, path] of READ_ROUTES) {
      const url = path.replace('{id}', '0123456789abcdef0123456789abcdef');
      expect([method, path, matchRoute(method, url).kind]).toEqual([method, path, 'unavailable']);
      expect([method, path, matchRoute(method, url, true).kind]).toEqual([method, path, 'read']);
    }
  });

  it('names the method and the normalised route in the 501 detail', () => {
    const m = matchRoute('DELETE', '/api/tracing/traces/abc/');
    expect(m.kind === 'unavailable' && m.detail.startsWith('DELETE /tracing/traces/abc ')).toBe(true);
  });

  it('serves GET and DELETE of a trace and the flat query only with a store (read-api.md §1.2, §1.3)', () => {
    expect(matchRoute('GET', '/tracing/traces/abc')).toMatchObject({ kind: 'unavailable' });
    expect(matchRoute('GET', '/api/preview/tracing/traces/abc/', true)).toEqual({ kind: 'read', route: 'get_trace', id: 'abc' });
    expect(matchRoute('DELETE', '/tracing/traces/abc', true)).toEqual({ kind: 'read', route: 'delete_trace', id: 'abc' });
    expect(matchRoute('POST', '/tracing/spans/query', true)).toEqual({ kind: 'read', route: 'query' });
    expect(matchRoute('PATCH', '/preview/tracing/traces/abc', true)).toEqual({ kind: 'read', route: 'simple_patch', id: 'abc' });
    expect(matchRoute('GET', '/simple/traces/abc', true)).toEqual({ kind: 'read', route: 'simple_get', id: 'abc' });
    expect(matchRoute('PATCH', '/simple/traces/abc', true)).toEqual({ kind: 'read', route: 'simple_patch', id: 'abc' });
    expect(matchRoute('DELETE', '/simple/traces/abc', true)).toEqual({ kind: 'read', route: 'simple_delete', id: 'abc' });
    expect(matchRoute('POST', '/api/simple/traces/query/', true)).toEqual({ kind: 'read', route: 'simple_query' });
    expect(matchRoute('PUT', '/simple/traces/abc', true)).toEqual({ kind: 'method_not_allowed', allow: 'GET, PATCH, DELETE' });
    expect(matchRoute('GET', '/tracing/spans/query', true)).toEqual({ kind: 'method_not_allowed', allow: 'POST' });
    expect(matchRoute('PUT', '/tracing/traces/abc', true)).toEqual({
      kind: 'unavailable', detail: "PUT /tracing/traces/abc is not available: tracehop's trace store does not serve this route",
    });
    expect(matchRoute('POST', '/tracing/spans/analytics', true)).toMatchObject({ kind: 'unavailable' });
    expect(matchRoute('POST', '/tracing/traces/abc', true)).toEqual({ kind: 'method_not_allowed', allow: 'GET, PUT, PATCH, DELETE' });
  });

  it('serves the /traces router with a store: GET /traces/, GET and DELETE /traces/{id} (read-api.md §1.2 - §1.4)', () => {
    expect(matchRoute('GET', '/api/traces/?trace_id=abc', true)).toEqual({ kind: 'read', route: 'traces_list' });
    expect(matchRoute('GET', '/preview/traces/abc/', true)).toEqual({ kind: 'read', route: 'traces_get', id: 'abc' });
    expect(matchRoute('DELETE', '/traces/abc', true)).toEqual({ kind: 'read', route: 'traces_delete', id: 'abc' });
    expect(matchRoute('PATCH', '/traces/abc', true)).toEqual({ kind: 'method_not_allowed', allow: 'GET, PUT, DELETE' });
    expect(matchRoute('DELETE', '/traces', true)).toEqual({ kind: 'method_not_allowed', allow: 'GET, POST' });
    expect(matchRoute('PUT', '/traces/abc', true)).toEqual({
      kind: 'unavailable', detail: "PUT /traces/abc is not available: tracehop's trace store does not serve this route",
    });
    for (const path of ['/traces', '/traces/ingest']) {
      expect(matchRoute('POST', path, true)).toEqual({ kind: 'unavailable', detail: `POST ${path} is not available in tracehop: send spans to POST /tracing/spans/ingest` });
    }
    expect(matchRoute('POST', '/traces/query', true)).toEqual({ kind: 'read', route: 'traces_query' });
    expect(matchRoute('POST', '/api/spans/query/', true)).toEqual({ kind: 'read', route: 'spans_query' });
    expect(matchRoute('GET', '/spans/query', true)).toEqual({ kind: 'method_not_allowed', allow: 'POST' });
    expect(matchRoute('GET', '/spans/query').kind).toBe('unavailable');
    expect(matchRoute('GET', '/traces/query', true)).toEqual({ kind: 'method_not_allowed', allow: 'POST', detail: 'GET /traces/query is not supported.' });
    expect(matchRoute('GET', '/api/traces/InGeSt/', true)).toEqual({ kind: 'method_not_allowed', allow: 'POST', detail: 'GET /traces/ingest is not supported.' });
    // `query` is a trace id for the by-id methods, as in the backend's router (then 400).
    expect(matchRoute('DELETE', '/traces/query', true)).toEqual({ kind: 'read', route: 'traces_delete', id: 'query' });
    expect(matchRoute('GET', '/traces/a/b', true)).toMatchObject({ kind: 'unavailable' });
    // Without a store the whole router stays 501 (ingest-api.md §1.3).
    for (const method of ['GET', 'PATCH', 'DELETE']) expect(matchRoute(method, '/traces/query').kind).toBe('unavailable');
  });
});
