// What a failed produce request means for the pipeline: retry later (the stream holds the data),
// give these spans up (dead letters), "unknown" (counted attempts, then dead letters), or "auth": the
// broker or its certificate refuses us, which only an operator can fix (a start-up error at start; later,
// retried with an error log, since the spans are fine and must not be dropped).

export type SendFailure = 'retryable' | 'permanent' | 'auth' | 'unknown';

/** Credentials refused, or not allowed to do this. */
const AUTH_API_ERRORS = /^(SASL_AUTHENTICATION_FAILED|ILLEGAL_SASL_STATE|UNSUPPORTED_SASL_MECHANISM|TOPIC_AUTHORIZATION_FAILED|CLUSTER_AUTHORIZATION_FAILED|TRANSACTIONAL_ID_AUTHORIZATION_FAILED|GROUP_AUTHORIZATION_FAILED)$/;

/** Node's TLS verification failures: a certificate the config does not trust. */
const TLS_ERRORS = /^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|ERR_TLS_CERT_ALTNAME_INVALID|ERR_SSL_.*)$/;

/** Broker answers that no retry can change: the records themselves are refused. */
const PERMANENT_API_ERRORS = new Set([
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  'INVALID_RECORD',
  'CORRUPT_MESSAGE',
  'UNSUPPORTED_COMPRESSION_TYPE',
]);

interface ErrorLike {
  code?: unknown;
  apiId?: unknown;
  canRetry?: unknown;
  errors?: unknown;
  cause?: unknown;
}

/** Every error in the chain: the library nests causes in AggregateErrors (one per attempt or broker). */
function* chain(error: unknown, depth = 0): Generator<ErrorLike> {
  if (!error || typeof error !== 'object' || depth > 8) return;
  const e = error as ErrorLike;
  yield e;
  if (Array.isArray(e.errors)) for (const inner of e.errors) yield* chain(inner, depth + 1);
  if (e.cause) yield* chain(e.cause, depth + 1);
}

export function classifySendError(error: unknown): SendFailure {
  let retryable = false;
  for (const e of chain(error)) {
    if (typeof e.apiId === 'string' && PERMANENT_API_ERRORS.has(e.apiId)) return 'permanent';
    if (e.code === 'PLT_KFK_AUTHENTICATION' || (typeof e.apiId === 'string' && AUTH_API_ERRORS.test(e.apiId))) return 'auth';
    if (typeof e.code === 'string' && TLS_ERRORS.test(e.code)) return 'auth';
    // Connection refused or reset, timeouts (the library files them under the network code), a broker
    // that is not the leader yet, a topic the metadata does not show yet: all pass with time.
    if (e.code === 'PLT_KFK_NETWORK' || e.code === 'PLT_KFK_TIMEOUT' || e.canRetry === true) retryable = true;
    if (typeof e.code === 'string' && /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|ENOTFOUND)$/.test(e.code)) {
      retryable = true;
    }
  }
  return retryable ? 'retryable' : 'unknown';
}

/** One line for logs and error messages: the outer message plus the distinct inner ones. */
export function describeSendError(error: unknown): string {
  const seen = new Set<string>();
  for (const e of chain(error)) {
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && message !== '') seen.add(typeof e.apiId === 'string' ? `${message} (${e.apiId})` : message);
    if (seen.size >= 4) break;
  }
  return [...seen].join('; ') || String(error);
}
