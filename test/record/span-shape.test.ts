// Every receiver builds spans with all SPAN_FIELDS, in order (model/span.ts): one hidden class for every
// span that reaches namespace and the encoders. A field added to Span and to one receiver only, or a
// receiver that adds an optional field after the literal, breaks this.
import { describe, expect, it } from 'vitest';
import { flatBody, nestedBody, otlpProtoBody } from '../../bench/bodies.ts';
import { TracingBodyReader } from '../../codec/tracing/body-reader.ts';
import { TracingSpans } from '../../codec/tracing/spans.ts';
import { decodeExportRequestJson, encodeExportRequestJson } from '../../codec/otlp/index.ts';
import { decodeExportRequest } from '../helpers/otlp-decode.ts';
import { SPAN_FIELDS, type Span } from '../../model/span.ts';

function tracing(body: Buffer): Span[] {
  const value = new TracingBodyReader(64).read(body, true) as { spans?: unknown[]; traces?: Record<string, unknown> };
  const checked = new TracingSpans().check(value.spans ? { form: 'flat', spans: value.spans } : { form: 'tree', traces: value.traces! });
  expect(checked.rejections).toEqual([]);
  return checked.spans;
}

describe('one span shape from every receiver', () => {
  const otlp = decodeExportRequest(otlpProtoBody(0)).spans;
  const sources: Array<[string, Span[]]> = [
    ['OTLP protobuf', otlp],
    ['OTLP/JSON', decodeExportRequestJson(Buffer.from(encodeExportRequestJson(otlp))).spans],
    ['tracing API, flat', tracing(flatBody(0))],
    ['tracing API, nested', tracing(nestedBody(0))],
  ];
  it.each(sources)('%s: every field, in SPAN_FIELDS order', (_name, spans) => {
    expect(spans.length).toBeGreaterThan(10);
    // Roots and children, with and without events: all the same keys.
    expect(spans.some((s) => s.parentId === undefined)).toBe(true);
    for (const span of spans) expect(Object.keys(span)).toEqual(SPAN_FIELDS);
  });
});
