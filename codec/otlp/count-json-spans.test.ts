import { describe, expect, it } from 'vitest';
import { countJsonSpans, mayExceedSpans } from './count-json-spans.ts';
import { decodeExportRequestJson } from './decode-json.ts';
import { OtlpSpanLimitError } from './errors.ts';

const bytes = (text: string) => Buffer.from(text);
const body = (spans: string[]) => `{"resourceSpans":[{"scopeSpans":[{"spans":[${spans.join(',')}]}]}]}`;
const empties = (n: number) => Array<string>(n).fill('{}');

/** The counter's verdict: 'over' when it refuses, 'ok' when it does not. */
function verdict(text: string, max: number): 'over' | 'ok' {
  try {
    countJsonSpans(bytes(text), max, 208);
    return 'ok';
  } catch (e) {
    if (e instanceof OtlpSpanLimitError) return 'over';
    throw e;
  }
}

describe('countJsonSpans', () => {
  it('refuses one span over the limit, takes exactly the limit', () => {
    expect(verdict(body(empties(3)), 2)).toBe('over');
    expect(verdict(body(empties(2)), 2)).toBe('ok');
  });

  it('adds up every scope and resource, under both spellings and escaped names', () => {
    const text = `{"resource_spans":[{"scope_spans":[{"spans":[{}]},{"spans":[{}]}]},
      {"scopeSpans":[{"sp\\u0061ns":[{"name":"x"}]}]}]}`;
    expect(verdict(text, 2)).toBe('over');
    expect(verdict(text, 3)).toBe('ok');
  });

  it('does not count arrays elsewhere: attributes, events, unknown members', () => {
    const span = '{"events":[{},{},{}],"attributes":[{"key":"k","value":{"arrayValue":{"values":[{},{},{}]}}}]}';
    const text = `{"other":[{},{},{}],"resourceSpans":[{"resource":{"attributes":[{"key":"a","value":{}},{"key":"b","value":{}}]},
      "scopeSpans":[{"scope":{"attributes":[{},{},{}]},"spans":[${span}],"x":{"spans":[{},{}]}}]}]}`;
    expect(verdict(text, 1)).toBe('ok');
    expect(decodeExportRequestJson(bytes(text)).spans).toHaveLength(1);
  });

  it('gives no verdict on text that is not JSON or nests too deep (JSON.parse answers)', () => {
    expect(verdict(body(empties(5)).slice(0, -3), 2)).toBe('over'); // counted before the text breaks off
    expect(verdict(`{"resourceSpans":[{"scopeSpans":[{"spans":[{},{},{}`.replace('{}', '{]'), 2)).toBe('ok');
    expect(verdict(`{"x":${'['.repeat(300)}${']'.repeat(300)},${body(empties(3)).slice(1)}`, 2)).toBe('ok');
  });

  it('counts a list given twice twice (an upper bound; JSON.parse keeps the last)', () => {
    expect(verdict('{"resourceSpans":[{"scopeSpans":[{"spans":[{},{}],"spans":[]}]}]}', 1)).toBe('over');
  });
});

describe('decodeExportRequestJson with a span limit', () => {
  it('refuses a million empty spans before JSON.parse (OtlpSpanLimitError)', () => {
    expect(() => decodeExportRequestJson(bytes(body(empties(1_000_000))), 100_000)).toThrow(OtlpSpanLimitError);
    // Cut short, the body is not JSON: only a count made before JSON.parse can call it over the limit.
    expect(() => decodeExportRequestJson(bytes(body(empties(1_000_000)).slice(0, -10)), 100_000)).toThrow(OtlpSpanLimitError);
  });

  it('counts on the bytes only when the body is long enough to hold more than the limit', () => {
    expect(mayExceedSpans(body(empties(3)).length, 100)).toBe(false);
    expect(mayExceedSpans('[{},{},{}]'.length, 2)).toBe(true);
    expect(mayExceedSpans('[0,0]'.length, 2)).toBe(false);
  });
});
