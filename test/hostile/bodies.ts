// Hostile request bodies, built by hand so that each one is the smallest bytes that make the most
// objects: empty spans, empty attributes, wide kvlists of empty entries, and compression bombs.
// Protobuf field numbers are those of opentelemetry/proto/trace/v1 and common/v1.

/** A protobuf varint. */
function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/** A length-delimited field. */
export function field(number: number, payload: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([...varint((number << 3) | 2), ...varint(payload.length)]), payload]);
}

/** `count` copies of `item`, concatenated. */
export function repeat(item: Uint8Array, count: number): Buffer {
  const out = Buffer.allocUnsafe(item.length * count);
  for (let i = 0; i < count; i++) out.set(item, i * item.length);
  return out;
}

const EMPTY = new Uint8Array(0);
const TRACE_ID = Buffer.from('4bf92f3577b34da6a3ce929d0e0e4736', 'hex');
const SPAN_ID = Buffer.from('00f067aa0ba902b7', 'hex');

/**
 * ExportTraceServiceRequest{resource_spans(1): [{scope_spans(2): [<scopeContent>]}]}: the content is
 * ScopeSpans fields, its spans(2) entries.
 */
export function protoScope(scopeContent: Uint8Array): Buffer {
  return field(1, field(2, scopeContent));
}

/** A valid span (ids, times) with `extra` fields appended (attributes...). */
export function protoSpan(extra: Uint8Array = EMPTY): Buffer {
  const times = Buffer.alloc(18);
  times[0] = (7 << 3) | 1; // start_time_unix_nano fixed64
  times.writeBigUInt64LE(1_700_000_000_000_000_000n, 1);
  times[9] = (8 << 3) | 1; // end_time_unix_nano fixed64
  times.writeBigUInt64LE(1_700_000_001_000_000_000n, 10);
  return field(2, Buffer.concat([field(1, TRACE_ID), field(2, SPAN_ID), field(5, Buffer.from('hostile')), times, extra]));
}

export const proto = {
  /** `count` empty Span messages in one ScopeSpans. */
  emptySpans: (count: number) => protoScope(repeat(field(2, EMPTY), count)),
  /** `count` empty ScopeSpans in one ResourceSpans (no spans at all). */
  emptyScopes: (count: number) => field(1, repeat(field(2, EMPTY), count)),
  /** One valid span with `count` empty KeyValue attributes. */
  emptyAttributes: (count: number) => protoScope(protoSpan(repeat(field(9, EMPTY), count))),
  /** One valid span whose one attribute is a kvlist of `count` empty KeyValues. */
  wideKvlist: (count: number) => protoScope(protoSpan(field(9, Buffer.concat([field(1, Buffer.from('k')), field(2, field(6, repeat(field(1, EMPTY), count)))])))),
  /** One valid span whose one attribute is an array of `count` empty kvlists. */
  arrayOfEmptyKvlists: (count: number) => protoScope(protoSpan(field(9, Buffer.concat([field(1, Buffer.from('k')), field(2, field(5, repeat(field(1, field(6, EMPTY)), count)))])))),
  /** One valid span. */
  valid: () => protoScope(protoSpan()),
};

const SPAN_JSON = '{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"00f067aa0ba902b7","name":"hostile","startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000001000000000"';

function jsonRequest(spans: string): Buffer {
  return Buffer.from(`{"resourceSpans":[{"scopeSpans":[{"spans":[${spans}]}]}]}`);
}

/** `count` copies of `item` joined by commas. */
function list(item: string, count: number): string {
  return new Array<string>(count).fill(item).join(',');
}

export const json = {
  emptySpans: (count: number) => jsonRequest(list('{}', count)),
  emptyAttributes: (count: number) => jsonRequest(`${SPAN_JSON},"attributes":[${list('{}', count)}]}`),
  wideKvlist: (count: number) => jsonRequest(`${SPAN_JSON},"attributes":[{"key":"k","value":{"kvlistValue":{"values":[${list('{}', count)}]}}}]}`),
  arrayOfEmptyKvlists: (count: number) => jsonRequest(`${SPAN_JSON},"attributes":[{"key":"k","value":{"arrayValue":{"values":[${list('{"kvlistValue":{}}', count)}]}}}]}`),
  valid: () => jsonRequest(`${SPAN_JSON}}`),
};

/** A tracing API body: `{"spans":[...]}` of flat spans. */
export const tracing = {
  emptySpans: (count: number) => Buffer.from(`{"spans":[${list('{}', count)}]}`),
  emptyAttributes: (count: number) => Buffer.from(`{"spans":[{"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"00f067aa0ba902b7","span_name":"hostile","start_time":"2026-04-16T18:18:18Z","end_time":"2026-04-16T18:18:19Z","attributes":{"a":[${list('{}', count)}]}}]}`),
  valid: () => Buffer.from('{"spans":[{"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"00f067aa0ba902b7","span_name":"hostile","start_time":"2026-04-16T18:18:18Z","end_time":"2026-04-16T18:18:19Z"}]}'),
};

/** `depth` nested arrays: `[[[...]]]`. */
export function deepJson(depth: number, prefix = '', suffix = ''): Buffer {
  return Buffer.from(prefix + '['.repeat(depth) + ']'.repeat(depth) + suffix);
}

/**
 * One valid span whose attribute `k` is a kvlist nested `depth` levels deep ({k: {k: {...}}}), written
 * from the inside out into one buffer (wrapping level by level would copy the whole body each time).
 */
export function protoDeepKvlist(depth: number): Buffer {
  const out = Buffer.alloc(depth * 16 + 16);
  let start = out.length;
  const prepend = (bytes: number[]) => {
    start -= bytes.length;
    out.set(bytes, start);
  };
  const wrap = (tag: number) => prepend([tag, ...varint(out.length - start)]);
  for (let i = 0; i < depth; i++) {
    wrap(0x12); // KeyValue.value (2): the AnyValue so far
    wrap(0x0a); // KeyValueList.values (1): that KeyValue
    wrap(0x32); // AnyValue.kvlist_value (6)
  }
  const value = out.subarray(start);
  return protoScope(protoSpan(field(9, Buffer.concat([field(1, Buffer.from('k')), field(2, value)]))));
}
