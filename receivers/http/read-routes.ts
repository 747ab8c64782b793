// The routes served from the trace store (read-api.md §1.2, §5, §6): `GET` / `DELETE
// /tracing/traces/{trace_id}`, `POST /tracing/spans/query`, and the `/traces` router's `GET` / `DELETE
// /traces/{trace_id}` and `GET /traces/?trace_id=..`, which answer a `Trace` object per trace, and the simple-trace
// routes of §8 (the PATCH appends through the handler's write side: simple-edit-route.ts). The handler has
// already matched the route and checked auth; this runs the rest of §2.1: the body checks, the path id (400),
// the body (422).
import type { IncomingMessage } from 'node:http';
import { parseJsonBytes, stringifyJson } from '../../codec/json/parse.ts';
import { normaliseTraceId } from '../../model/ids.ts';
import { parseFlatQuery } from '../../exporters/store/query-body.ts';
import type { TraceReads } from '../../exporters/store/reads.ts';
import { QueryTimeoutError } from '../../exporters/store/query.ts';
import { declaredTooLarge, decodeBody, readBody } from './body.ts';
import type { HttpReceiverConfig } from './config.ts';
import { detailReply, isReply, validationReply, type Reply } from './replies.ts';
import { normalisePath, type ReadRoute } from './routes.ts';
import { answerSimpleEdit, type EditWait, type EditWriter } from './simple-edit-route.ts';
import { EditOrder } from './edit-order.ts';
import { checkSimpleEdit } from './simple-trace.ts';
import { checkTransport } from './transport.ts';
import { parseSimpleQuery } from './simple-query-body.ts';
import { parseStructuredQuery } from '../../exporters/store/structured-query-body.ts';
import { TracePage } from './page/trace-page.ts';

export const INVALID_TRACE_ID = detailReply(400, 'Invalid trace_id.');
const NO_TRACE_ID = detailReply(400, 'At least one trace_id query parameter is required.');

/** A `{trace_id}` path segment: percent-decoded, then any trace-id form of ingest-api.md §4.3. */
export function pathTraceId(segment: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  return normaliseTraceId(decoded);
}

/**
 * The ids of `GET /traces/` (§5.3): every `trace_id` parameter, then the comma-separated entries of
 * `trace_ids` (trimmed, empty ones skipped), normalised, duplicates dropped (first wins); or the 400.
 */
export function queryTraceIds(rawUrl: string, maxIds: number): string[] | Reply {
  const q = rawUrl.indexOf('?');
  const params = new URLSearchParams(q < 0 ? '' : rawUrl.slice(q + 1));
  const given = [
    ...params.getAll('trace_id'),
    ...params.getAll('trace_ids').flatMap((list) => list.split(',').map((id) => id.trim()).filter((id) => id !== '')),
  ];
  const ids = new Set<string>();
  for (const raw of given) {
    const id = normaliseTraceId(raw);
    if (id === undefined) return INVALID_TRACE_ID;
    ids.add(id);
  }
  if (ids.size === 0) return NO_TRACE_ID;
  if (ids.size > maxIds) return detailReply(400, `Too many trace ids: at most ${maxIds}.`);
  return [...ids];
}

/** The store the read routes serve, asked per request (a reload replaces the store exporter). */
export interface ReadSource {
  /** The store's read side; undefined while the store is not open (503). */
  reads: () => TraceReads | undefined;
  /** Whether this receiver's pipelines deliver to the store, so that an edit it appends reaches it (§8.3). */
  storeFed: () => boolean;
}

export class ReadRoutes {
  readonly #config: HttpReceiverConfig;
  readonly #reads: () => TraceReads | undefined;
  readonly #storeFed: () => boolean;
  /** The PATCH's way into the ingest stream: the handler's span checks and append. */
  readonly #writer: EditWriter;
  readonly #retryAfterSeconds: number;
  /** The PATCHes of each trace in arrival order, each after the edit before it is stored (edit-order.ts). */
  readonly #editOrder: EditOrder;
  /** `GET /`: the page to look at traces, over the same store. */
  readonly page: TracePage;

  constructor(config: HttpReceiverConfig, source: ReadSource, writer: EditWriter) {
    this.#config = config;
    this.#reads = source.reads;
    this.#storeFed = source.storeFed;
    this.#writer = writer;
    this.#retryAfterSeconds = Math.ceil(config.retry_after / 1000);
    this.page = new TracePage(config, source.reads);
    this.#editOrder = new EditOrder(source.reads, config.read.query_timeout);
  }

  /** `project`: of the accepted key; '' (no project) when none (§2.4). */
  async answer(route: ReadRoute, id: string | undefined, incoming: IncomingMessage, project: string | undefined): Promise<Reply> {
    const scope = project ?? '';
    if (route === 'query') return this.#query(incoming, scope);
    if (route === 'traces_list') return this.#list(incoming.url ?? '/', scope);
    if (route === 'simple_query') return this.#simpleQuery(incoming, scope);
    if (route === 'spans_query' || route === 'traces_query') return this.#structuredQuery(route === 'spans_query' ? 'span' : 'trace', incoming, scope);
    if (route === 'simple_patch') return this.#edit(id!, incoming, project);
    const traceId = pathTraceId(id!);
    if (traceId === undefined) return INVALID_TRACE_ID;
    const reads = this.#reads();
    if (reads === undefined) return this.#notOpen();
    switch (route) {
      case 'get_trace': {
        const trace = reads.getTrace(scope, traceId);
        return { status: 200, body: trace === undefined ? '{"count":0}' : stringifyJson({ count: 1, traces: { [traceId]: trace } }) };
      }
      case 'traces_get': {
        const trace = reads.getTrace(scope, traceId);
        return { status: 200, body: trace === undefined ? '{"count":0}' : stringifyJson({ count: 1, trace: { trace_id: traceId, ...trace } }) };
      }
      case 'traces_delete': {
        const deleted = reads.deleteTrace(scope, traceId).length > 0;
        return { status: 202, body: deleted ? JSON.stringify({ count: 1, trace_id: traceId }) : '{"count":0}' };
      }
      case 'delete_trace': {
        const links = reads.deleteTrace(scope, traceId);
        return { status: 202, body: JSON.stringify({ count: links.length, links }) };
      }
      case 'simple_get': {
        const trace = reads.simpleTrace(scope, traceId);
        return { status: 200, body: trace === undefined ? '{"count":0}' : stringifyJson({ count: 1, trace }) };
      }
      case 'simple_delete': {
        const link = reads.deleteSimpleTrace(scope, traceId);
        return { status: 200, body: link === undefined ? '{"count":0}' : JSON.stringify({ count: 1, link }) };
      }
    }
  }

  /** §5.3 `GET /traces/`: the `Trace` of each id of the query string, in id order, unknown ids skipped. */
  #list(rawUrl: string, scope: string): Reply {
    const ids = queryTraceIds(rawUrl, this.#config.read.max_limit);
    if (isReply(ids)) return ids;
    const reads = this.#reads();
    if (reads === undefined) return this.#notOpen();
    const traces: Record<string, unknown>[] = [];
    for (const traceId of ids) {
      const trace = reads.getTrace(scope, traceId);
      if (trace !== undefined) traces.push({ trace_id: traceId, ...trace });
    }
    return { status: 200, body: stringifyJson({ count: traces.length, traces }) };
  }

  /** §8.5 `POST /simple/traces/query`. */
  async #simpleQuery(incoming: IncomingMessage, scope: string): Promise<Reply> {
    const body = await this.#body(incoming);
    if (isReply(body)) return body;
    const { default_limit: defaultLimit, max_limit: maxLimit } = this.#config.read;
    const query = parseSimpleQuery(body, { defaultLimit, maxLimit });
    if (Array.isArray(query)) return validationReply(query);
    const reads = this.#reads();
    if (reads === undefined) return this.#notOpen();
    return this.#timed(async () => {
      const traces = await reads.simpleQuery(scope, query, this.#config.read.query_timeout || Infinity);
      return { count: traces.length, traces };
    });
  }

  /** §7 `POST /spans/query` (focus span) and `POST /traces/query` (focus trace). */
  async #structuredQuery(focus: 'span' | 'trace', incoming: IncomingMessage, scope: string): Promise<Reply> {
    const body = await this.#body(incoming);
    if (isReply(body)) return body;
    const { default_limit: defaultLimit, max_limit: maxLimit } = this.#config.read;
    const query = parseStructuredQuery(body, { defaultLimit, maxLimit }, focus);
    if (Array.isArray(query)) return validationReply(query);
    const reads = this.#reads();
    if (reads === undefined) return this.#notOpen();
    return this.#timed(() => reads.structuredQuery(scope, focus, query, this.#config.read.query_timeout || Infinity));
  }

  /** Runs a query; past `query_timeout`, 503 (§2.2). */
  async #timed(run: () => Promise<unknown>): Promise<Reply> {
    try {
      return { status: 200, body: stringifyJson(await run()) };
    } catch (error) {
      if (!(error instanceof QueryTimeoutError)) throw error;
      return this.#unavailable(error.message);
    }
  }

  async #query(incoming: IncomingMessage, scope: string): Promise<Reply> {
    const body = await this.#body(incoming);
    if (isReply(body)) return body;
    const { default_limit: defaultLimit, max_limit: maxLimit } = this.#config.read;
    const query = parseFlatQuery(body, { defaultLimit, maxLimit });
    if (Array.isArray(query)) return validationReply(query);
    const reads = this.#reads();
    if (reads === undefined) return this.#notOpen();
    return this.#timed(() => reads.query(scope, query, this.#config.read.query_timeout || Infinity));
  }

  /** §8.3 PATCH of a simple trace, in §2.1's order of checks; the edit itself: simple-edit-route.ts. */
  async #edit(id: string, incoming: IncomingMessage, project: string | undefined): Promise<Reply> {
    const receivedMs = Date.now();
    const body = await this.#sizedBody(incoming);
    if (isReply(body)) return body;
    const traceId = pathTraceId(id);
    if (traceId === undefined) return INVALID_TRACE_ID;
    const parts = checkSimpleEdit(body.value);
    if (Array.isArray(parts)) return validationReply(parts);
    if (!this.#storeFed()) {
      return detailReply(501, `PATCH ${normalisePath(incoming.url ?? '/')} is not available: the trace store is not fed by this receiver`);
    }
    if (this.#reads() === undefined) return this.#notOpen();
    const wait: EditWait = {
      order: this.#editOrder,
      reads: this.#reads,
      unavailable: (detail) => this.#unavailable(detail),
      notOpen: () => this.#notOpen(),
      queryTimeoutMs: this.#config.read.query_timeout,
    };
    return answerSimpleEdit(this.#writer, wait, { traceId, project, parts, bodyBytes: body.bytes, receivedMs });
  }

  /** The JSON body with the write routes' transport, size, depth and JSON checks; empty reads as {}. */
  async #body(incoming: IncomingMessage): Promise<unknown> {
    const body = await this.#sizedBody(incoming);
    return isReply(body) ? body : body.value;
  }

  /** #body and its size in bytes (decoded, as the write routes count it). */
  async #sizedBody(incoming: IncomingMessage): Promise<{ value: unknown; bytes: number } | Reply> {
    const codings = checkTransport(incoming.headers);
    if (isReply(codings)) return codings;
    const limit = this.#config.max_request_body_size;
    const declared = declaredTooLarge(incoming, limit);
    if (declared !== undefined) return declared;
    const raw = await readBody(incoming, limit);
    if (isReply(raw)) return raw;
    const bytes = decodeBody(raw, codings, limit);
    if (isReply(bytes)) return bytes;
    const { max_nesting_depth: maxDepth, max_values_per_request: maxValues } = this.#config;
    const parsed = parseJsonBytes(bytes, maxDepth, maxValues);
    if (parsed.ok) return { value: parsed.value, bytes: bytes.length };
    switch (parsed.problem) {
      case 'empty':
        return { value: {}, bytes: 0 };
      case 'too_deep':
      case 'too_many_values':
        return detailReply(413, parsed.message);
      default:
        return validationReply([{ loc: ['body'], msg: parsed.message, type: 'json_invalid' }]);
    }
  }

  #notOpen(): Reply {
    return this.#unavailable('The trace store is not open yet');
  }

  /** 503 with `Retry-After` (the receiver's `retry_after`): a store not open, a query or a PATCH's wait too long. */
  #unavailable(detail: string): Reply {
    return detailReply(503, detail, { 'retry-after': String(this.#retryAfterSeconds) });
  }
}
