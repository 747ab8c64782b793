import type { Span } from '../model/span.ts';

// Errors that cross component boundaries and change what the pipeline does with a batch.

/** The ingest stream (or the memory limiter) refused an append: nothing was appended; the client retries. */
/** Why a request is turned away before it is read (503 + Retry-After); a plain value, cheap to make per
 *  request under overload, where an Error would capture a stack each time. */
export interface Refusal {
  message: string;
  retryAfterMs: number;
  /** What refuses (for the receivers' refusal metrics); absent: the stream. */
  refusedBy?: RefusalCause;
}

/** Who turned a request away before the receiver's own checks: the memory limiter, a stream, shutdown. */
export type RefusalCause = 'memory' | 'stream_full' | 'shutdown';

export class RefusedError extends Error {
  readonly retryAfterMs: number;
  readonly status: 429 | 503;
  /** Set by the graph when the refusal came from shutting down; absent: the stream was full or failing. */
  refusedBy?: RefusalCause;
  constructor(message: string, retryAfterMs = 1000, status: 429 | 503 = 503) {
    super(message);
    this.name = 'RefusedError';
    this.retryAfterMs = retryAfterMs;
    this.status = status;
  }
}

/** A delivery failure worth retrying (broker down, 503 from a peer). The stream keeps the data. */
export class RetryableError extends Error {
  /** A wait the peer asked for (Retry-After), raising the backoff. */
  readonly retryAfterMs?: number;
  constructor(message: string, retryAfterMs?: number, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RetryableError';
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * A delivery failure that retrying cannot fix (4xx, message too large): the spans go to dead letters.
 * `spans`, when given, names the only spans that failed: the exporter delivered the rest of the batch.
 */
export class PermanentError extends Error {
  readonly spans?: Span[];
  constructor(message: string, options?: ErrorOptions & { spans?: Span[] }) {
    super(message, options);
    this.name = 'PermanentError';
    this.spans = options?.spans;
  }
}

/** A start-up problem the operator must fix (port in use, unwritable path, missing topic). */
export class StartupError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StartupError';
  }
}
