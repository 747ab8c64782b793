// The errors the OTLP codec throws. The request body cannot be decoded at all: receivers answer HTTP 400 /
// gRPC INVALID_ARGUMENT with the message as the google.rpc.Status detail. The request holds more spans
// than the receiver takes: HTTP 413 / gRPC RESOURCE_EXHAUSTED.

export class OtlpDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OtlpDecodeError';
  }
}

/** A request over one of the receiver's count limits: HTTP 413 / gRPC RESOURCE_EXHAUSTED. */
export class OtlpLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OtlpLimitError';
  }
}

/** Thrown before the spans are decoded (they are counted first), so an oversized request costs no objects. */
export class OtlpSpanLimitError extends OtlpLimitError {
  constructor(limit: number) {
    super(`the request holds more than max_spans_per_request (${limit}) spans`);
    this.name = 'OtlpSpanLimitError';
  }
}

/**
 * Thrown when a request holds more values than `max_values_per_request`: protobuf attributes, array and
 * kvlist elements, events and links, counted as they are decoded; JSON objects and arrays, counted on
 * the bytes before JSON.parse. A few bytes each, they would otherwise become objects (or flattened keys)
 * of a hundred bytes and more.
 */
export class OtlpValueLimitError extends OtlpLimitError {
  constructor(message: string) {
    super(message);
    this.name = 'OtlpValueLimitError';
  }

  static protobuf(limit: number): OtlpValueLimitError {
    return new OtlpValueLimitError(`the request holds more than max_values_per_request (${limit}) attributes, array and kvlist elements, events and links`);
  }
}

/** AnyValue arrays and kvlists may nest; deeper input is refused so no body can exhaust the stack. */
export const MAX_VALUE_DEPTH = 64;
/** Protobuf groups (deprecated wire types 3/4) are skipped recursively; same bound. */
export const MAX_GROUP_DEPTH = 64;
