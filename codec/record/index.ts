// The span record's encodings for exporters (span-record.md).
export { encodeSpanJson } from './encode-json.ts';
export type { AttributesShape } from './encode-json.ts';
export { formatTimeNs } from './time-format.ts';
export { BatchLinesEncoder } from './batch-lines-encoder.ts';
