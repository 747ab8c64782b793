// `POST|GET /otlp/v1/traces` on the tracing API's port (ingest-api.md §1.2): the same behaviour as the
// `otlp` receiver's HTTP side, so an application can send OTLP and REST calls to one host.
//
// This file is the one place where the shared OTLP/HTTP handler (receivers/otlp) plugs in. Route
// matching, `/api` stripping and auth have already run; Content-Type, encoding, limits and the body are
// the shared handler's business, with this receiver's `max_request_body_size` and `max_spans_per_request`.
import type { IncomingMessage } from 'node:http';
import type { IngestConsumer } from '../../pipeline/component.ts';
import type { Logger } from '../../pipeline/log.ts';
import type { ReceiverMetrics } from '../../pipeline/telemetry/metrics.ts';
import { createOtlpHttpHandler } from '../otlp/http-handler.ts';
import type { HttpReceiverConfig } from './config.ts';
import type { Reply } from './replies.ts';

/** `project`: of the key the tracing API accepted the request with. */
export type OtlpRoute = (method: string, incoming: IncomingMessage, project: string | undefined) => Promise<Reply> | Reply;

export interface OtlpRouteContext {
  config: HttpReceiverConfig;
  consumer: IngestConsumer;
  logger: Logger;
  /** This receiver's: the shared handler counts the spans, the tracing API handler the request. */
  metrics?: ReceiverMetrics;
}

export function createOtlpRoute(context: OtlpRouteContext): OtlpRoute {
  const handler = createOtlpHttpHandler({
    consumer: context.consumer,
    logger: context.logger,
    maxRequestBodySize: context.config.max_request_body_size,
    maxSpansPerRequest: context.config.max_spans_per_request,
    maxValuesPerRequest: context.config.max_values_per_request,
    metrics: context.metrics,
  });
  return (method, incoming, project) => handler(method, incoming, true, project);
}
