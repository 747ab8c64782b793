// One-off decoding of an ExportTraceServiceRequest for tests: a receiver keeps one ProtoDecoder for all its
// requests; a test that checks a few bodies takes a fresh one each time.
import { ProtoDecoder, type DecodedRequest } from '../../codec/otlp/index.ts';

export function decodeExportRequest(bytes: Uint8Array): DecodedRequest {
  return new ProtoDecoder().decode(bytes);
}
