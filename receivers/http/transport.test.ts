import { describe, expect, it } from 'vitest';
import { parseContentEncoding } from '../common/request-body.ts';
import { checkTransport, isJsonContentType } from './transport.ts';

describe('Content-Type (ingest-api.md §2.4)', () => {
  it.each([
    ['application/json', true],
    ['APPLICATION/JSON', true],
    ['application/json; charset=utf-8', true],
    ['application/json;charset="UTF-8"; q=1', true],
    ['application/vnd.agenta+json', true],
    ['application/+json', false],
    ['application/json; charset=latin-1', false],
    ['text/json', false],
    ['text/plain', false],
    ['application/jsonx', false],
  ])('%s -> %s', (value, ok) => {
    expect(isJsonContentType(value)).toBe(ok);
  });
});

describe('Content-Encoding', () => {
  it('lists codings in the order applied, dropping identity', () => {
    expect(parseContentEncoding('gzip, zstd')).toEqual(['gzip', 'zstd']);
    expect(parseContentEncoding('X-GZIP,identity,Deflate')).toEqual(['gzip', 'deflate']);
    expect(parseContentEncoding('')).toEqual([]);
  });

  it('rejects unknown tokens, including prototype names', () => {
    expect(parseContentEncoding('br')).toBeUndefined();
    expect(parseContentEncoding('gzip, constructor')).toBeUndefined();
  });

  it('answers 415 naming the header value', () => {
    expect(checkTransport({ 'content-type': 'text/plain' })).toMatchObject({ status: 415 });
    expect(checkTransport({ 'content-encoding': 'br' })).toMatchObject({
      status: 415, body: JSON.stringify({ detail: 'Unsupported Content-Encoding: br' }),
    });
    expect(checkTransport({})).toEqual([]);
  });
});
