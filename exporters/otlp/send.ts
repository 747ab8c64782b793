// One OTLP/HTTP request and what its outcome means for the pipeline (otlp.md exporter rules):
// 2xx delivered (partial_success reported, not retried); 429/502/503/504 and transport failures
// retryable (Retry-After raises the wait); other 4xx permanent with the status and the first KiB of the
// body; any other status is an error that counts as an attempt (the runner dead-letters after
// dead_letter.max_attempts), as neither "retry forever" nor "drop at once" fits an unknown 5xx.
import { PermanentError, RetryableError } from '../../pipeline/errors.ts';
import {
  decodeExportResponse, decodeExportResponseJson, decodeStatus, type PartialSuccess,
} from '../../codec/otlp/index.ts';
import { parseRetryAfter } from './retry-after.ts';

const RETRYABLE = new Set([429, 502, 503, 504]);
const BODY_EXCERPT_BYTES = 1024;

/** A permanent rejection by the peer, with what it said. */
export class OtlpHttpError extends PermanentError {
  readonly status: number;
  /** The first KiB of the response body (a google.rpc.Status message when the body was protobuf). */
  readonly body: string;
  constructor(status: number, body: string) {
    super(`OTLP endpoint answered ${status}: ${body}`);
    this.name = 'OtlpHttpError';
    this.status = status;
    this.body = body;
  }
}

export interface SendRequest {
  url: string;
  body: Uint8Array;
  headers: Record<string, string>;
  timeoutMs: number;
  json: boolean;
}

/** The readable part of an error body: a protobuf Status's message, else the text, cut to 1 KiB. */
function bodyExcerpt(bytes: Uint8Array, contentType: string | null): string {
  let text: string;
  if (contentType?.includes('protobuf')) {
    const status = decodeStatus(bytes);
    text = status.message !== '' ? status.message : Buffer.from(bytes).toString('hex');
  } else {
    text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  }
  const buf = Buffer.from(text, 'utf8');
  return buf.length <= BODY_EXCERPT_BYTES ? text : buf.subarray(0, BODY_EXCERPT_BYTES).toString('utf8');
}

function describeFailure(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'timed out';
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
}

/** Sends one request. Resolves with the peer's partial_success (if any); throws per the rules above. */
export async function sendRequest(req: SendRequest): Promise<PartialSuccess | undefined> {
  let response: Response;
  let bytes: Uint8Array;
  try {
    response = await fetch(req.url, {
      method: 'POST',
      body: req.body,
      headers: req.headers,
      signal: AbortSignal.timeout(req.timeoutMs),
    });
    bytes = new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    throw new RetryableError(`OTLP request to ${req.url} failed: ${describeFailure(error)}`, undefined, { cause: error });
  }
  const status = response.status;
  if (status >= 200 && status < 300) {
    try {
      const contentType = response.headers.get('content-type') ?? '';
      const json = contentType.includes('json') || (contentType === '' && req.json);
      return json ? decodeExportResponseJson(Buffer.from(bytes).toString('utf8')) : decodeExportResponse(bytes);
    } catch {
      // Delivered: an unreadable success body does not change that.
      return undefined;
    }
  }
  const excerpt = bodyExcerpt(bytes, response.headers.get('content-type'));
  if (RETRYABLE.has(status)) {
    throw new RetryableError(`OTLP endpoint answered ${status}: ${excerpt}`, parseRetryAfter(response.headers.get('retry-after')));
  }
  if (status >= 400 && status < 500) throw new OtlpHttpError(status, excerpt);
  throw new Error(`OTLP endpoint answered ${status}: ${excerpt}`);
}
