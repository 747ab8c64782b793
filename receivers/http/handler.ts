// One request of the tracing API, in the order of ingest-api.md §2.1: the first failing check decides
// the answer, and nothing reaches the ingest stream unless every check before the append passed.
import type { IncomingMessage } from 'node:http';
import type { IngestConsumer } from '../../pipeline/component.ts';
import { RandomIds } from '../../model/ids.ts';
import { parseJsonBytes, stringifyJson } from '../../codec/json/parse.ts';
import type { Span } from '../../model/span.ts';
import { keptShare } from '../../pipeline/stream/size.ts';
import { TracingBodyReader } from '../../codec/tracing/body-reader.ts';
import { TracingSpans, type CheckedSpans } from '../../codec/tracing/spans.ts';
import { countTracingSpans } from '../../codec/tracing/tree.ts';
import type { Authenticate } from '../../pipeline/auth.ts';
import { NO_RECEIVER_METRICS, type ReceiverMetrics } from '../../pipeline/telemetry/metrics.ts';
import { reasonOfStatus, refusedByReason } from '../common/refusal.ts';
import { declaredTooLarge, decodeBody, readBody } from './body.ts';
import type { HttpReceiverConfig } from './config.ts';
import type { OtlpRoute } from './otlp-route.ts';
import { ReadRoutes, type ReadSource } from './read-routes.ts';
import type { WorkingBatch } from '../../model/batch.ts';
import {
  allRejectedReply, detailReply, isReply, methodNotAllowed, NOT_FOUND, refusedReply, UNAUTHORIZED, validationReply,
  type Reply,
} from './replies.ts';
import { matchRoute, type ReadRoute, type RouteMatch, type WriteRoute } from './routes.ts';
import { checkSimpleTrace, simpleTraceEcho, simpleTraceSpan } from './simple-trace.ts';
import { checkTraceBody, checkTraceSpans } from './single-trace.ts';
import { tracingBodyOf } from './tracing-body.ts';
import { checkTransport } from './transport.ts';

/** Wall-clock now in nanoseconds (microsecond resolution). */
function nowNs(): bigint {
  const ms = performance.timeOrigin + performance.now();
  const whole = Math.floor(ms);
  return BigInt(whole) * 1_000_000n + BigInt(Math.floor((ms - whole) * 1e6));
}

/**
 * The answer for a body the reader refused (not UTF-8 JSON within the nesting limit), in the order of
 * §2.1: the nesting limit (413), then UTF-8 and JSON (422, with JSON.parse's message).
 */
function unreadableReply(bytes: Uint8Array, maxDepth: number, maxValues: number): Reply {
  const parsed = parseJsonBytes(bytes, maxDepth, maxValues);
  if (parsed.ok) throw new Error('the tracing body reader refused a body JSON.parse accepts');
  switch (parsed.problem) {
    case 'too_deep':
    case 'too_many_values':
      return detailReply(413, parsed.message);
    case 'empty':
      return validationReply([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
    default:
      return validationReply([{ loc: ['body'], msg: parsed.message, type: 'json_invalid' }]);
  }
}

/** The route label of the request metrics: a fixed set, never the client's path. */
const WRITE_ROUTE_LABELS: Record<WriteRoute, string> = {
  ingest: '/tracing/spans/ingest', traces: '/tracing/traces', simple: '/simple/traces',
};

const READ_ROUTE_LABELS: Record<ReadRoute, string> = {
  get_trace: '/tracing/traces/{trace_id}', delete_trace: '/tracing/traces/{trace_id}', query: '/tracing/spans/query',
  traces_get: '/traces/{trace_id}', traces_delete: '/traces/{trace_id}', traces_list: '/traces',
  simple_get: '/simple/traces/{trace_id}', simple_patch: '/simple/traces/{trace_id}', simple_delete: '/simple/traces/{trace_id}',
  simple_query: '/simple/traces/query', spans_query: '/spans/query', traces_query: '/traces/query',
};

function routeLabel(match: RouteMatch): string {
  switch (match.kind) {
    case 'write':
      return WRITE_ROUTE_LABELS[match.route];
    case 'read':
      return READ_ROUTE_LABELS[match.route];
    case 'otlp':
      return '/otlp/v1/traces';
    case 'page':
      return '/';
    case 'unavailable':
      return 'unavailable';
    default:
      return 'other';
  }
}

/** The 202 body of §5.3, written directly: ids are canonical hex and need no escaping. */
function linksBody(batch: CheckedSpans): string {
  const spans = batch.spans;
  let out = '{"count":' + spans.length + ',"links":[';
  for (let i = 0; i < spans.length; i++) {
    if (i > 0) out += ',';
    out += '{"trace_id":"' + spans[i].traceId + '","span_id":"' + spans[i].spanId + '"}';
  }
  out += ']';
  if (batch.rejections.length > 0) out += ',"rejected":' + JSON.stringify(batch.rejections);
  return out + '}';
}

export class TracingApiHandler {
  readonly #config: HttpReceiverConfig;
  readonly #consumer: IngestConsumer;
  readonly #otlp: OtlpRoute;
  readonly #authenticate: Authenticate;
  readonly #retryAfterSeconds: number;
  readonly #bodies: TracingBodyReader;
  /** Ids for simple traces. */
  readonly #ids = new RandomIds();
  readonly #spans = new TracingSpans();
  readonly #metrics: ReceiverMetrics;
  /** The read routes, when a trace store serves this receiver (read-api.md §10). */
  readonly #reads: ReadRoutes | undefined;

  constructor(
    config: HttpReceiverConfig, consumer: IngestConsumer, otlp: OtlpRoute, authenticate: Authenticate, metrics = NO_RECEIVER_METRICS,
    reads?: ReadSource,
  ) {
    this.#metrics = metrics;
    // A PATCH (§8.3) appends its edited span through this handler's checks and pipeline call.
    this.#reads = reads && new ReadRoutes(config, reads, {
      check: (span) => this.#spans.check({ form: 'flat', spans: [span] }),
      append: (batch, wireBytes) => this.#consumeBatch(batch, wireBytes),
    });
    this.#config = config;
    this.#consumer = consumer;
    this.#otlp = otlp;
    this.#authenticate = authenticate;
    this.#retryAfterSeconds = Math.ceil(config.retry_after / 1000);
    this.#bodies = new TracingBodyReader(config.max_nesting_depth, config.max_values_per_request);
  }

  /**
   * Answers one request and counts it (route, status, refusal reason: the one place this receiver's
   * answers are counted). Never throws on client input; an exception is a bug (the server answers 500).
   */
  handle(incoming: IncomingMessage): Promise<Reply> | Reply {
    const started = performance.now();
    const method = incoming.method ?? 'GET';
    const match = matchRoute(method, incoming.url ?? '/', this.#reads !== undefined);
    const reply = this.#answer(method, match, incoming);
    const route = routeLabel(match);
    if (!(reply instanceof Promise)) return this.#counted(route, reply, started);
    return reply.then((r) => this.#counted(route, r, started), (error: unknown) => {
      this.#metrics.answered(route, 500, undefined, started);
      throw error;
    });
  }

  #counted(route: string, reply: Reply, started: number): Reply {
    this.#metrics.answered(route, reply.status, reply.reason ?? reasonOfStatus(reply.status), started);
    return reply;
  }

  #answer(method: string, match: RouteMatch, incoming: IncomingMessage): Promise<Reply> | Reply {
    if (match.kind === 'not_found') return NOT_FOUND;
    if (match.kind === 'method_not_allowed') return methodNotAllowed(match.allow, match.detail);
    // Before the body is read: a request without a valid key costs nothing more.
    const identity = this.#authenticate?.(incoming.headers.authorization);
    if (this.#authenticate !== undefined && identity === undefined) return UNAUTHORIZED;
    if (match.kind === 'unavailable') return detailReply(501, match.detail);
    if (match.kind === 'otlp') return this.#otlp(method, incoming, identity?.project);
    if (match.kind === 'page') return this.#reads!.page.answer(incoming.url ?? '/', identity?.project ?? '');
    if (match.kind === 'read') return this.#reads!.answer(match.route, match.id, incoming, identity?.project);
    return this.#write(match.route, incoming, identity?.project);
  }

  /** `project`: of the accepted key, for every span of the request. */
  async #write(route: WriteRoute, incoming: IncomingMessage, project: string | undefined): Promise<Reply> {
    const receivedNs = nowNs();
    const codings = checkTransport(incoming.headers);
    if (isReply(codings)) return codings;
    const limit = this.#config.max_request_body_size;
    const declared = declaredTooLarge(incoming, limit);
    if (declared !== undefined) return declared;
    // Refuse before reading and decoding: the point is to stop spending memory.
    const refusal = this.#consumer.admit();
    if (refusal !== undefined) return refusedReply(503, refusal.message, this.#retryAfterSeconds, refusedByReason(refusal.refusedBy));
    const behind = this.#consumer.waitForExporters();
    if (behind !== undefined) await behind;

    const raw = await readBody(incoming, limit);
    if (isReply(raw)) return raw;
    const bytes = decodeBody(raw, codings, limit);
    if (isReply(bytes)) return bytes;
    const value = this.#bodies.read(bytes, route !== 'simple');
    if (value === undefined) return unreadableReply(bytes, this.#config.max_nesting_depth, this.#config.max_values_per_request);
    return route === 'simple'
      ? this.#simple(value, receivedNs, bytes.length, project)
      : this.#tracing(route, value, bytes.length, project);
  }

  async #tracing(route: 'ingest' | 'traces', value: unknown, bodyBytes: number, project: string | undefined): Promise<Reply> {
    const body = tracingBodyOf(value);
    if (Array.isArray(body)) return validationReply(body);
    const limit = this.#config.max_spans_per_request;
    const count = countTracingSpans(body, limit);
    if (count > limit) return detailReply(413, `Request holds more than max_spans_per_request (${limit}) spans`);
    if (route === 'traces') {
      const problem = checkTraceBody(body, count);
      if (problem !== undefined) return detailReply(400, problem);
    }
    const checked = this.#spans.check(body);
    this.#metrics.refusedSpans('invalid', checked.rejections.length);
    if (checked.spans.length === 0 && checked.rejections.length > 0) return allRejectedReply(checked.rejections);
    if (route === 'traces') {
      const problem = checkTraceSpans(checked.spans);
      if (problem !== undefined) {
        this.#metrics.refusedSpans('invalid', checked.spans.length);
        const rejected = checked.rejections.length > 0 ? checked.rejections : undefined;
        return { status: 400, body: JSON.stringify({ detail: problem, rejected }) };
      }
    }
    // The 202 lists the spans by id, which the processors do not change: written before they run.
    const links = linksBody(checked);
    const refused = await this.#consume(checked.spans, keptShare(bodyBytes, checked.spans.length, count), project);
    return refused ?? { status: 202, body: links };
  }

  async #simple(value: unknown, receivedNs: bigint, bodyBytes: number, project: string | undefined): Promise<Reply> {
    const trace = checkSimpleTrace(value);
    if (Array.isArray(trace)) return validationReply(trace);
    const traceId = this.#ids.traceId();
    const spanId = this.#ids.spanId();
    const span = simpleTraceSpan(trace, traceId, spanId, receivedNs.toString());
    const checked = this.#spans.check({ form: 'flat', spans: [span] });
    // The body was checked above, so the span is accepted; if it ever were not, say so, append nothing.
    if (checked.spans.length === 0) return allRejectedReply(checked.rejections);
    const refused = await this.#consume(checked.spans, bodyBytes, project);
    return refused ?? { status: 202, body: stringifyJson({ count: 1, trace: simpleTraceEcho(trace, traceId, spanId) }) };
  }

  /**
   * The pipeline's one call (`wireBytes`: the body bytes the spans came in); a refusal becomes its
   * 429/503 answer (nothing was appended). Nothing to append: no call. `project`: of the key the
   * request was accepted with (the pipeline gives it to every span).
   */
  async #consume(spans: Span[], wireBytes: number, project: string | undefined): Promise<Reply | undefined> {
    if (spans.length === 0) return undefined;
    return this.#consumeBatch({ origin: 'tracing', spans, project }, wireBytes);
  }

  /** #consume for a batch the caller reads again afterwards (the processors change it in place). */
  async #consumeBatch(batch: WorkingBatch, wireBytes: number): Promise<Reply | undefined> {
    const spans = batch.spans;
    const refused = await this.#consumer.consume(batch, wireBytes);
    if (refused === undefined) {
      this.#metrics.accepted(spans.length);
      return undefined;
    }
    const reason = refusedByReason(refused.refusedBy);
    this.#metrics.refusedSpans(reason, spans.length);
    return refusedReply(refused.status, refused.message, this.#retryAfterSeconds, reason);
  }
}
