// ExportTraceServiceResponse and google.rpc.Status, in protobuf and OTLP/JSON: what the receiver answers
// and what the exporter reads back from a peer.
import { ProtoReader, WIRE_LEN, WIRE_VARINT } from './proto-reader.ts';
import { ProtoWriter } from './proto-writer.ts';
import { OtlpDecodeError } from './errors.ts';

/** gRPC status codes used in google.rpc.Status and over gRPC (otlp.md). */
export const GrpcCode = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

export interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

/** ExportTraceServiceResponse; a full success (nothing rejected, no message) is the empty message. */
export function encodeExportResponse(partial?: PartialSuccess): Uint8Array {
  if (partial === undefined || (partial.rejectedSpans === 0 && partial.errorMessage === '')) return new Uint8Array(0);
  const w = new ProtoWriter(64 + partial.errorMessage.length * 3);
  w.tag(1, WIRE_LEN);
  const m = w.begin();
  if (partial.rejectedSpans !== 0) {
    w.tag(1, WIRE_VARINT);
    w.int64(partial.rejectedSpans);
  }
  if (partial.errorMessage !== '') {
    w.tag(2, WIRE_LEN);
    w.string(partial.errorMessage);
  }
  w.end(m);
  return w.finish();
}

export function encodeExportResponseJson(partial?: PartialSuccess): string {
  if (partial === undefined || (partial.rejectedSpans === 0 && partial.errorMessage === '')) return '{}';
  const ps: Record<string, unknown> = {};
  if (partial.rejectedSpans !== 0) ps.rejectedSpans = String(partial.rejectedSpans);
  if (partial.errorMessage !== '') ps.errorMessage = partial.errorMessage;
  return JSON.stringify({ partialSuccess: ps });
}

/** Reads a peer's ExportTraceServiceResponse; undefined when it carries no partial_success. */
export function decodeExportResponse(bytes: Uint8Array): PartialSuccess | undefined {
  const r = new ProtoReader(bytes);
  let result: PartialSuccess | undefined;
  while (r.pos < r.end) {
    const tag = r.tag();
    if (tag === ((1 << 3) | WIRE_LEN)) {
      const len = r.length();
      const saved = r.end;
      r.end = r.pos + len;
      result = { rejectedSpans: 0, errorMessage: '' };
      while (r.pos < r.end) {
        const t = r.tag();
        if (t === ((1 << 3) | WIRE_VARINT)) result.rejectedSpans = Number(r.int64());
        else if (t === ((2 << 3) | WIRE_LEN)) result.errorMessage = r.string();
        else r.skip(t & 7, t >>> 3);
      }
      r.pos = r.end;
      r.end = saved;
    } else r.skip(tag & 7, tag >>> 3);
  }
  return result;
}

export function decodeExportResponseJson(text: string): PartialSuccess | undefined {
  if (text.trim() === '') return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (error) {
    throw new OtlpDecodeError(`response is not JSON: ${(error as Error).message}`);
  }
  if (v === null || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const ps = (o.partialSuccess ?? o.partial_success) as Record<string, unknown> | undefined;
  if (ps === null || typeof ps !== 'object') return undefined;
  const rejected = Number(ps.rejectedSpans ?? ps.rejected_spans ?? 0);
  const message = ps.errorMessage ?? ps.error_message;
  return {
    rejectedSpans: Number.isFinite(rejected) ? rejected : 0,
    errorMessage: typeof message === 'string' ? message : '',
  };
}

/** google.rpc.Status {code, message}; details are never sent. */
export function encodeStatus(code: number, message: string): Uint8Array {
  const w = new ProtoWriter(16 + message.length * 3);
  if (code !== 0) {
    w.tag(1, WIRE_VARINT);
    w.int64(code);
  }
  if (message !== '') {
    w.tag(2, WIRE_LEN);
    w.string(message);
  }
  return w.finish();
}

export function encodeStatusJson(code: number, message: string): string {
  return JSON.stringify({ code, message });
}

/** A peer's google.rpc.Status; the fields that were readable (a broken body yields what came before). */
export function decodeStatus(bytes: Uint8Array): { code: number; message: string } {
  const r = new ProtoReader(bytes);
  const out = { code: 0, message: '' };
  try {
    while (r.pos < r.end) {
      const tag = r.tag();
      if (tag === ((1 << 3) | WIRE_VARINT)) out.code = r.int32();
      else if (tag === ((2 << 3) | WIRE_LEN)) out.message = r.string();
      else r.skip(tag & 7, tag >>> 3);
    }
  } catch {
    // A peer's error body is informational: keep what was read.
  }
  return out;
}
