// Spans as JSON lines the way a file or stdout exporter writes a batch: a fresh BatchLinesEncoder, which
// has no buffer or key memory from an earlier batch, for tests that need a batch's expected bytes.
import { BatchLinesEncoder, type AttributesShape } from '../../codec/record/index.ts';
import type { Span } from '../../model/span.ts';

export function jsonLinesBytes(spans: readonly Span[], options?: { attributesShape?: AttributesShape }): Buffer {
  return new BatchLinesEncoder(options).encode(spans);
}

export function jsonLines(spans: readonly Span[], options?: { attributesShape?: AttributesShape }): string {
  return jsonLinesBytes(spans, options).toString('utf8');
}
