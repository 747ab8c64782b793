// The OTLP codec shared by the otlp receiver, the http receiver's /otlp/v1/traces route and the OTLP
// and Kafka exporters (spec/otlp.md, span-record.md "OTLP encodings").
export { OtlpDecodeError, OtlpLimitError } from './errors.ts';
export { ProtoDecoder, type DecodedRequest } from './decode-proto.ts';
export { decodeExportRequestJson } from './decode-json.ts';
export { ExportRequestEncoder } from './encode-proto.ts';
export { encodeExportRequestJson, exportRequestJson } from './encode-json.ts';
export {
  GrpcCode, type PartialSuccess, encodeExportResponse, encodeExportResponseJson, decodeExportResponse,
  decodeExportResponseJson, encodeStatus, encodeStatusJson, decodeStatus,
} from './response.ts';
