// Every receiver builds spans with all SPAN_FIELDS, in order (model/span.ts): one hidden class for every
// span that reaches namespace and the encoders. A field added to Span and to one receiver only, or a
// receiver that adds an optional field after the literal, breaks this.
import { describe, expect, it } from 'vitest';
import { flatBody, nestedBody, otlpProtoBody } from '../../bench/bodies.ts';
import type { WorkingBatch } from '../../model/batch.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { decodeExportRequest, decodeExportRequestJson, encodeExportRequestJson } from '../../codec/otlp/index.ts';
import { SPAN_FIELDS, type Span } from '../../model/span.ts';
import { factory as flatten } from '../../processors/flatten/factory.ts';
import { factory as validate } from '../../processors/validate/factory.ts';

const context = (id: string) => ({ id, logger: silentLogger });

function tracing(body: Buffer): Span[] {
  const value = JSON.parse(body.toString()) as { spans?: unknown[]; traces?: Record<string, unknown> };
  const batch: WorkingBatch = {
    origin: 'tracing',
    tracing: value.spans ? { form: 'flat', spans: value.spans } : { form: 'tree', traces: value.traces! },
    spans: [],
    rejections: [],
  };
  flatten.create({}, context('flatten')).process(batch);
  validate.create({}, context('validate')).process(batch);
  expect(batch.rejections).toEqual([]);
  return batch.spans;
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
