// `GET /` of the tracing API when a store serves reads: the page to look at traces (README "The page").
//   /              the most recent traces (`read.default_limit` of them)
//   /?q=<text>     traces with a span whose name contains <text> (any case), or the trace <text> is the id of
//   /?trace=<id>   one trace as a tree (any trace-id form of ingest-api.md §4.3)
// It reads the store in process, through the same TraceReads and flat query the read routes use, and in
// the caller's scope (read-api.md §2.4): the handler has checked auth before this runs.
import { normaliseTraceId } from '../../../model/ids.ts';
import { parseFlatQuery } from '../../../exporters/store/query-body.ts';
import { QueryTimeoutError } from '../../../exporters/store/query.ts';
import type { TraceReads } from '../../../exporters/store/reads.ts';
import type { HttpReceiverConfig } from '../config.ts';
import type { Reply } from '../replies.ts';
import { listPage, messagePage, tracePage } from './render.ts';
import { spansInOrder } from '../../../model/read-trace.ts';
import { summarise } from './trace-view.ts';

/**
 * No script may run and nothing may load from elsewhere, whatever a span holds: escaping keeps span
 * content out of the markup, and this policy would stop it even if that failed. Styles are inline.
 */
const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function page(status: number, body: string, extra?: Record<string, string>): Reply {
  return { status, body, headers: { ...PAGE_HEADERS, ...extra } };
}

/** The flat query body (read-api.md §6.1) of the list: everything, or the search's filter. */
export function searchBody(search: string, limit: number): Record<string, unknown> {
  if (search === '') return { focus: 'trace', limit };
  const byName = { field: 'span_name', operator: 'contains', value: search };
  const traceId = normaliseTraceId(search);
  const conditions = traceId === undefined ? [byName] : [byName, { field: 'trace_id', value: traceId }];
  return { focus: 'trace', limit, filter: { operator: 'or', conditions } };
}

export class TracePage {
  readonly #config: HttpReceiverConfig;
  readonly #reads: () => TraceReads | undefined;
  readonly #retryAfterSeconds: number;

  constructor(config: HttpReceiverConfig, reads: () => TraceReads | undefined) {
    this.#config = config;
    this.#reads = reads;
    this.#retryAfterSeconds = Math.ceil(config.retry_after / 1000);
  }

  /** `rawUrl`: the request target; `project`: the accepted key's, '' for none. */
  async answer(rawUrl: string, project: string): Promise<Reply> {
    const params = new URL(rawUrl, 'http://page').searchParams;
    const reads = this.#reads();
    if (reads === undefined) return this.#unavailable('The trace store is not open yet.');
    const trace = params.get('trace');
    if (trace !== null) return this.#trace(reads, trace.trim(), project);
    return this.#list(reads, (params.get('q') ?? '').trim(), project);
  }

  #trace(reads: TraceReads, raw: string, project: string): Reply {
    const traceId = normaliseTraceId(raw);
    if (traceId === undefined) return page(400, messagePage('Invalid trace id', `"${raw}" is not a trace id.`));
    const map = reads.getTrace(project, traceId);
    if (map === undefined) return page(404, messagePage('Trace not found', `No trace ${traceId} is stored.`));
    const spans = spansInOrder(map.spans);
    return page(200, tracePage(summarise(traceId, spans), spans));
  }

  async #list(reads: TraceReads, search: string, project: string): Promise<Reply> {
    const { default_limit: limit, max_limit: maxLimit, query_timeout: timeout } = this.#config.read;
    const query = parseFlatQuery(searchBody(search, limit), { defaultLimit: limit, maxLimit });
    if (Array.isArray(query)) throw new Error(`the page built a query the store refuses: ${JSON.stringify(query)}`);
    try {
      const result = await reads.query(project, query, timeout || Infinity);
      const traces = 'traces' in result ? result.traces : {};
      const summaries = Object.entries(traces).map(([id, map]) => summarise(id, spansInOrder((map as { spans: unknown }).spans)));
      return page(200, listPage(summaries, search, limit));
    } catch (error) {
      if (!(error instanceof QueryTimeoutError)) throw error;
      return this.#unavailable(error.message);
    }
  }

  #unavailable(message: string): Reply {
    return page(503, messagePage('Try again', message), { 'retry-after': String(this.#retryAfterSeconds) });
  }
}
