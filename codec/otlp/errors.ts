// The one error the OTLP codec throws: the request body cannot be decoded at all. Receivers turn it into
// HTTP 400 / gRPC INVALID_ARGUMENT with the message as the google.rpc.Status detail.

export class OtlpDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OtlpDecodeError';
  }
}

/** AnyValue arrays and kvlists may nest; deeper input is refused so no body can exhaust the stack. */
export const MAX_VALUE_DEPTH = 64;
/** Protobuf groups (deprecated wire types 3/4) are skipped recursively; same bound. */
export const MAX_GROUP_DEPTH = 64;
