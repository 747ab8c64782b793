// The one place the OTLP/gRPC Export answers are counted: the call's callback, wrapped, sees every
// answer the server decides (status code, refusal reason, duration) without a count at each return.
import { status, type sendUnaryData } from '@grpc/grpc-js';
import type { RefusalReason, ReceiverMetrics } from '../../pipeline/telemetry/metrics.ts';

/** The method label: the one method this server has. */
const EXPORT_METHOD = 'opentelemetry.proto.collector.trace.v1.TraceService/Export';

/** An error answer as the server builds it; `reason` is set where the code alone cannot tell (a 503's who). */
export interface CountedError {
  code: number;
  reason?: RefusalReason;
}

function reasonOfCode(code: number): RefusalReason | undefined {
  switch (code) {
    case status.UNAUTHENTICATED:
      return 'auth';
    case status.RESOURCE_EXHAUSTED:
      return 'limit';
    case status.INVALID_ARGUMENT:
      return 'invalid';
    case status.UNAVAILABLE:
      return 'stream_full';
    default:
      return undefined;
  }
}

/** `callback`, counting the answer it is given into `metrics` once. */
export function countedCallback<T>(metrics: ReceiverMetrics, callback: sendUnaryData<T>): sendUnaryData<T> {
  const started = performance.now();
  return (error, value, trailer, flags) => {
    const code = error == null ? status.OK : ((error as Partial<CountedError>).code ?? status.UNKNOWN);
    const reason = error == null ? undefined : ((error as Partial<CountedError>).reason ?? reasonOfCode(code));
    metrics.answeredRpc(EXPORT_METHOD, status[code] ?? String(code), reason, started);
    callback(error, value, trailer, flags);
  };
}
