// The answers of the tracing API (ingest-api.md §2.2): every body is JSON with a `detail`, except 202.
// A Reply is plain data; the server turns it into an HTTP response in one place (receiver.ts).
import { WWW_AUTHENTICATE } from '../../pipeline/auth.ts';
import type { Rejection } from '../../model/batch.ts';
import type { RefusalReason } from '../../pipeline/telemetry/metrics.ts';

export interface Reply {
  status: number;
  /** JSON text, unless `headers` names another `content-type` (the OTLP route answers protobuf). */
  body: string | Uint8Array;
  /** Lowercase names. */
  headers?: Record<string, string>;
  /** Why a 429/503 refused (for the metrics, never written); other refusals are told by their status. */
  reason?: RefusalReason;
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Tells a check's answer from its result (a Buffer, a list of codings, a parsed body: none has a `status`). */
export function isReply(v: unknown): v is Reply {
  return typeof v === 'object' && v !== null && 'status' in v;
}

/** One FastAPI-style validation entry (§2.3); `loc` and `type` are the contract, `msg` is free text. */
export interface ValidationItem {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

export function detailReply(status: number, detail: string, headers?: Record<string, string>): Reply {
  return { status, body: JSON.stringify({ detail }), headers };
}

export function validationReply(items: ValidationItem[]): Reply {
  return { status: 422, body: JSON.stringify({ detail: items }) };
}

/** Every submitted span was rejected (§5.3): 422 with the rejection entries as `detail`. */
export function allRejectedReply(rejections: Rejection[]): Reply {
  return { status: 422, body: '{"detail":' + JSON.stringify(rejections) + '}' };
}

/** 429/503: the client retries after `retryAfterSeconds`. Nothing was appended. */
export function refusedReply(status: number, detail: string, retryAfterSeconds: number, reason: RefusalReason): Reply {
  return { status, body: JSON.stringify({ detail }), headers: { 'retry-after': String(retryAfterSeconds) }, reason };
}

export const NOT_FOUND: Reply = detailReply(404, 'Not Found');
export const UNAUTHORIZED: Reply = detailReply(401, 'Unauthorized', { 'www-authenticate': WWW_AUTHENTICATE });
export const INTERNAL_ERROR: Reply = detailReply(500, 'Internal Server Error');

export function methodNotAllowed(allow: string, detail = 'Method Not Allowed'): Reply {
  return detailReply(405, detail, { allow });
}
