// `POST|GET /otlp/v1/traces` on the tracing API's port (ingest-api.md §1.2): the same behaviour as the
// `otlp` receiver's HTTP side, so an application can send OTLP and REST calls to one host.
//
// This file is the one place where the shared OTLP/HTTP handler plugs in (the OTLP engineer may edit it).
// Until it does, the route answers 501. Route matching, `/api` stripping and auth have already run;
// Content-Type, encoding, limits and the body are this handler's business.
import type { IncomingMessage } from 'node:http';
import type { IngestConsumer } from '../../pipeline/component.ts';
import type { Logger } from '../../pipeline/log.ts';
import type { HttpReceiverConfig } from './config.ts';
import { detailReply, methodNotAllowed, type Reply } from './replies.ts';

export type OtlpRoute = (method: string, incoming: IncomingMessage) => Promise<Reply> | Reply;

export interface OtlpRouteContext {
  config: HttpReceiverConfig;
  consumer: IngestConsumer;
  logger: Logger;
}

export function createOtlpRoute(_context: OtlpRouteContext): OtlpRoute {
  return (method) => {
    if (method !== 'GET' && method !== 'POST') return methodNotAllowed('GET, POST');
    return detailReply(501, `${method} /otlp/v1/traces is not available on this port yet: send OTLP to the otlp receiver`);
  };
}
