// The errors the OTLP codec throws. The request body cannot be decoded at all: receivers answer HTTP 400 /
// gRPC INVALID_ARGUMENT with the message as the google.rpc.Status detail. The request holds more spans
// than the receiver takes: HTTP 413 / gRPC RESOURCE_EXHAUSTED.

export class OtlpDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OtlpDecodeError';
  }
}

/** Thrown before the spans are decoded (they are counted first), so an oversized request costs no objects. */
export class OtlpSpanLimitError extends Error {
  constructor(limit: number) {
    super(`the request holds more than max_spans_per_request (${limit}) spans`);
    this.name = 'OtlpSpanLimitError';
  }
}

/** AnyValue arrays and kvlists may nest; deeper input is refused so no body can exhaust the stack. */
export const MAX_VALUE_DEPTH = 64;
/** Protobuf groups (deprecated wire types 3/4) are skipped recursively; same bound. */
export const MAX_GROUP_DEPTH = 64;
