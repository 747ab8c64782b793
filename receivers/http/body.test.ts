import { deflateRawSync, deflateSync, gzipSync, zstdCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeBody } from './body.ts';

const text = Buffer.from('{"spans":[]}');

describe('decodeBody', () => {
  it('undoes each coding, right to left', () => {
    expect(decodeBody(gzipSync(text), ['gzip'], 100)).toEqual(text);
    expect(decodeBody(deflateSync(text), ['deflate'], 100)).toEqual(text);
    expect(decodeBody(deflateRawSync(text), ['deflate'], 100)).toEqual(text);
    expect(decodeBody(zstdCompressSync(text), ['zstd'], 100)).toEqual(text);
    expect(decodeBody(zstdCompressSync(gzipSync(text)), ['gzip', 'zstd'], 100)).toEqual(text);
  });

  it('raw deflate whose first bytes look like a zlib header still decodes', () => {
    // Find a raw stream that happens to start with a valid zlib CMF/FLG pair.
    for (let i = 0; i < 5000; i++) {
      const body = Buffer.from(`{"n":${i}}`);
      const raw = deflateRawSync(body);
      if ((raw[0] & 0x0f) === 8 && ((raw[0] << 8) | raw[1]) % 31 === 0) {
        expect(decodeBody(raw, ['deflate'], 100)).toEqual(body);
        return;
      }
    }
    // No such stream in range: the zlib-first path is still covered above.
    expect(decodeBody(deflateRawSync(text), ['deflate'], 100)).toEqual(text);
  });

  it('corrupt data: 400 naming the coding; over the limit: 413; exactly the limit passes', () => {
    expect(decodeBody(Buffer.from('nope'), ['gzip'], 100)).toMatchObject({ status: 400 });
    expect(decodeBody(Buffer.from('nope'), ['zstd'], 100)).toMatchObject({
      status: 400, body: JSON.stringify({ detail: 'Invalid compressed body: zstd' }),
    });
    expect(decodeBody(gzipSync(Buffer.alloc(101)), ['gzip'], 100)).toMatchObject({ status: 413 });
    expect(decodeBody(gzipSync(Buffer.alloc(100)), ['gzip'], 100)).toHaveLength(100);
  });

  it('an empty body stays empty whatever the coding', () => {
    expect(decodeBody(Buffer.alloc(0), ['gzip'], 100)).toHaveLength(0);
  });
});
