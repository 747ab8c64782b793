// How both HTTP receivers and the gRPC server tell the refusal metrics (pipeline/telemetry/metrics.ts)
// why a request was turned away, from the answer they decided on: a 503 carries who refused (the
// memory limiter, a stream, shutdown), every other refusal is told by its status.
import type { RefusalCause } from '../../pipeline/errors.ts';
import type { RefusalReason } from '../../pipeline/telemetry/metrics.ts';

/** The refusal reason of a 429/503 that came from the consumer (a stream when it does not say). */
export function refusedByReason(refusedBy: RefusalCause | undefined): RefusalReason {
  return refusedBy ?? 'stream_full';
}

/** The reason an HTTP status refuses a request for, or undefined when it is no refusal (2xx, 404, 405, 501, 500). */
export function reasonOfStatus(status: number): RefusalReason | undefined {
  switch (status) {
    case 401:
      return 'auth';
    case 413:
      return 'limit';
    case 400:
    case 415:
    case 422:
      return 'invalid';
    case 429:
    case 503:
      return 'stream_full';
    default:
      return undefined;
  }
}
