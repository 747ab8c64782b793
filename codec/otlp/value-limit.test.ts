// max_values_per_request in the OTLP decoders: protobuf counts attributes, array and kvlist elements,
// events and links as it decodes them; OTLP/JSON counts objects and arrays on the bytes before JSON.parse.
import { describe, expect, it } from 'vitest';
import { decodeExportRequestJson } from './decode-json.ts';
import { ProtoDecoder } from './decode-proto.ts';
import { OtlpLimitError, OtlpSpanLimitError, OtlpValueLimitError } from './errors.ts';
import { json, proto } from '../../test/hostile/bodies.ts';

describe('max_values_per_request', () => {
  it('protobuf: attributes, kvlist and array elements are counted; at the limit the request decodes', () => {
    const decoder = new ProtoDecoder(100, 10);
    expect(decoder.decode(proto.emptyAttributes(10)).spans).toHaveLength(1);
    expect(() => decoder.decode(proto.emptyAttributes(11))).toThrow(OtlpValueLimitError);
    // One attribute holding 9 elements: 10 values.
    expect(decoder.decode(proto.wideKvlist(9)).spans).toHaveLength(1);
    expect(() => decoder.decode(proto.wideKvlist(10))).toThrow(OtlpValueLimitError);
    expect(() => decoder.decode(proto.arrayOfEmptyKvlists(10))).toThrow(
      'the request holds more than max_values_per_request (10) attributes, array and kvlist elements, events and links',
    );
    // The budget is per request: a request at the limit after one over it still decodes.
    expect(decoder.decode(proto.arrayOfEmptyKvlists(9)).spans).toHaveLength(1);
  });

  it('OTLP/JSON: objects and arrays are counted before JSON.parse', () => {
    // The valid body: root, resourceSpans, its object, scopeSpans, its object, spans, the span: 7.
    expect(decodeExportRequestJson(json.valid(), 100, 7).spans).toHaveLength(1);
    expect(() => decodeExportRequestJson(json.valid(), 100, 6)).toThrow(OtlpLimitError);
    // Cut short, a body over the limit is not JSON: only a count before JSON.parse calls it too many.
    expect(() => decodeExportRequestJson(json.emptyAttributes(1000).subarray(0, 2000), 100, 500)).toThrow(
      'JSON body holds more than max_values_per_request (500) objects and arrays',
    );
  });

  it('OTLP/JSON: empty spans are values too; within the value limit, the spans are counted on the parsed lists', () => {
    // 1000 empty spans and the 6 containers around them.
    expect(() => decodeExportRequestJson(json.emptySpans(1000), 100, 1005)).toThrow(OtlpValueLimitError);
    expect(() => decodeExportRequestJson(json.emptySpans(1000), 100, 1006)).toThrow(OtlpSpanLimitError);
    expect(() => decodeExportRequestJson(json.emptySpans(1000), 100, 1006)).toThrow('the request holds more than max_spans_per_request (100) spans');
    expect(decodeExportRequestJson(json.emptySpans(100), 100, 106).spans).toHaveLength(100);
  });
});
