// The OTLP/HTTP exchange for one request, independent of the server around it: the `otlp` receiver's
// own listener and the `http` receiver's `/otlp/v1/traces` route both call it (ingest-api.md §1.2), so
// the two answer identically. Order: method, Content-Type (415), Content-Encoding (400), declared size
// (413), admission (503), body (413), decompression (400/413), span count (413), decode (400), then the
// pipeline's one call.
import { WWW_AUTHENTICATE, type Authenticate } from '../../pipeline/auth.ts';
import { OtlpRules } from '../../codec/otlp/rules.ts';
import type { IncomingMessage } from 'node:http';
import type { IngestConsumer } from '../../pipeline/component.ts';
import type { Logger } from '../../pipeline/log.ts';
import type { RefusalReason, ReceiverMetrics } from '../../pipeline/telemetry/metrics.ts';
import { refusedByReason } from '../common/refusal.ts';
import {
  ProtoDecoder, decodeExportRequestJson, encodeExportResponse, encodeExportResponseJson, encodeStatus,
  encodeStatusJson, GrpcCode, OtlpDecodeError, OtlpLimitError, type DecodedRequest, type PartialSuccess,
} from '../../codec/otlp/index.ts';
import { declaredTooLarge, decompress, parseContentEncoding, readBody } from '../common/request-body.ts';
import { ingest, retryAfterSeconds } from './ingest.ts';

/** Structurally the same as the http receiver's Reply: status, body, lowercase headers. */
export interface OtlpHttpReply {
  status: number;
  body: string | Uint8Array;
  headers: Record<string, string>;
  /** Why a 429/503 refused (for the metrics, never written); other refusals are told by their status. */
  reason?: RefusalReason;
}

export interface OtlpHttpOptions {
  consumer: IngestConsumer;
  logger: Logger;
  /** Raw and decompressed. */
  maxRequestBodySize: number;
  /** Spans in one request (413 when over). */
  maxSpansPerRequest: number;
  /** Attributes, elements, events, links (protobuf) or objects and arrays (JSON) in one request (413 when over). */
  maxValuesPerRequest: number;
  /** The receiver's authenticator check; undefined: requests need no credential. */
  authenticate?: Authenticate;
  /** Counts accepted and refused spans; the server around the handler counts the request. */
  metrics?: ReceiverMetrics;
}

/**
 * `allowReadyCheck`: GET answers `{"status":"ready"}` (the `/otlp/v1/traces` path); default true.
 * `project`: of the key a caller already accepted the request with (the tracing API's route).
 */
export type OtlpHttpHandler = (method: string, incoming: IncomingMessage, allowReadyCheck?: boolean, project?: string) => Promise<OtlpHttpReply>;

type Encoding = 'proto' | 'json';

const PROTO_TYPE = 'application/x-protobuf';
const JSON_TYPE = 'application/json';

/** The request's encoding from its Content-Type, or undefined (415). */
function encodingOf(contentType: string | undefined): Encoding | undefined {
  if (contentType === undefined) return undefined;
  const semi = contentType.indexOf(';');
  const type = (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  if (type === PROTO_TYPE) return 'proto';
  if (type === JSON_TYPE) return 'json';
  return undefined;
}

/** A google.rpc.Status answer, in the request's encoding (JSON when it is unknown). */
function statusReply(http: number, code: number, message: string, encoding: Encoding, headers?: Record<string, string>): OtlpHttpReply {
  if (encoding === 'proto') {
    return { status: http, body: encodeStatus(code, message), headers: { 'content-type': PROTO_TYPE, ...headers } };
  }
  return { status: http, body: encodeStatusJson(code, message), headers: { 'content-type': JSON_TYPE, ...headers } };
}

function successReply(encoding: Encoding, partial?: PartialSuccess): OtlpHttpReply {
  if (encoding === 'proto') {
    return { status: 200, body: encodeExportResponse(partial), headers: { 'content-type': PROTO_TYPE } };
  }
  return { status: 200, body: encodeExportResponseJson(partial), headers: { 'content-type': JSON_TYPE } };
}

export const READY_REPLY: OtlpHttpReply = {
  status: 200, body: '{"status":"ready"}', headers: { 'content-type': JSON_TYPE },
};

/** Builds the handler. Anything but POST (and GET when the ready check is allowed) is 405. */
export function createOtlpHttpHandler(options: OtlpHttpOptions): OtlpHttpHandler {
  const { consumer, logger, maxRequestBodySize: limit, maxSpansPerRequest: maxSpans, maxValuesPerRequest: maxValues, authenticate, metrics } = options;
  const decoder = new ProtoDecoder(maxSpans, maxValues);
  const rules = new OtlpRules();
  return async (method, incoming, allowReadyCheck = true, accepted = undefined) => {
    if (method === 'GET' && allowReadyCheck) return READY_REPLY;
    if (method !== 'POST') {
      return statusReply(405, GrpcCode.UNIMPLEMENTED, `method ${method} not allowed, use POST`, 'json', {
        allow: allowReadyCheck ? 'GET, POST' : 'POST',
      });
    }
    const contentType = incoming.headers['content-type'];
    const encoding = encodingOf(contentType);
    // Before anything of the body is read: a request without a valid key costs nothing more.
    let project = accepted;
    if (authenticate !== undefined) {
      const identity = authenticate(incoming.headers.authorization);
      if (identity === undefined) {
        return statusReply(401, GrpcCode.UNAUTHENTICATED, 'missing or unknown API key', encoding ?? 'json', { 'www-authenticate': WWW_AUTHENTICATE });
      }
      project = identity.project;
    }
    if (encoding === undefined) {
      return statusReply(415, GrpcCode.INVALID_ARGUMENT,
        `unsupported Content-Type ${JSON.stringify(contentType ?? '')}: use ${PROTO_TYPE} or ${JSON_TYPE}`, 'json');
    }
    const codings = parseContentEncoding(incoming.headers['content-encoding']);
    if (codings === undefined) {
      return statusReply(400, GrpcCode.INVALID_ARGUMENT,
        `unsupported Content-Encoding ${JSON.stringify(incoming.headers['content-encoding'])}: use gzip, deflate or zstd`, encoding);
    }
    const declared = declaredTooLarge(incoming, limit);
    if (declared) return statusReply(declared.status, GrpcCode.INVALID_ARGUMENT, declared.message, encoding);
    // Refuse before reading: the point of admission is to stop spending memory.
    const refusal = consumer.admit();
    if (refusal !== undefined) {
      const reply = statusReply(503, GrpcCode.UNAVAILABLE, refusal.message, encoding, {
        'retry-after': String(retryAfterSeconds(refusal.retryAfterMs)),
      });
      reply.reason = refusedByReason(refusal.refusedBy);
      return reply;
    }
    const behind = consumer.waitForExporters();
    if (behind !== undefined) await behind;
    const raw = await readBody(incoming, limit);
    if (!raw.ok) return statusReply(raw.status, GrpcCode.INVALID_ARGUMENT, raw.message, encoding);
    const body = decompress(raw.bytes, codings, limit);
    if (!body.ok) return statusReply(body.status, GrpcCode.INVALID_ARGUMENT, body.message, encoding);

    let decoded: DecodedRequest;
    try {
      decoded = encoding === 'proto' ? decoder.decode(body.bytes) : decodeExportRequestJson(body.bytes, maxSpans, maxValues);
    } catch (error) {
      if (error instanceof OtlpLimitError) return statusReply(413, GrpcCode.RESOURCE_EXHAUSTED, error.message, encoding);
      if (error instanceof OtlpDecodeError) {
        return statusReply(400, GrpcCode.INVALID_ARGUMENT, `cannot decode the request: ${error.message}`, encoding);
      }
      throw error;
    }
    const outcome = await ingest(consumer, rules, decoded.spans, body.bytes.length, logger, project, metrics);
    switch (outcome.kind) {
      case 'accepted':
        return successReply(encoding, outcome.partial);
      case 'all_rejected':
        return statusReply(400, GrpcCode.INVALID_ARGUMENT, outcome.message, encoding);
      case 'refused': {
        const reply = statusReply(outcome.status, outcome.status === 429 ? GrpcCode.RESOURCE_EXHAUSTED : GrpcCode.UNAVAILABLE,
          outcome.message, encoding, { 'retry-after': String(retryAfterSeconds(outcome.retryAfterMs)) });
        reply.reason = refusedByReason(outcome.refusedBy);
        return reply;
      }
      case 'failed':
        return statusReply(500, GrpcCode.INTERNAL, outcome.message, encoding);
    }
  };
}
