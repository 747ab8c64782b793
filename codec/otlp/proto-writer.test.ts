import { describe, expect, it } from 'vitest';
import { AttributeList } from '../../model/attributes/list.ts';
import type { Span } from '../../model/span.ts';
import { ExportRequestEncoder } from './index.ts';
import { decodeExportRequest } from '../../test/helpers/otlp-decode.ts';
import { ProtoReader, WIRE_LEN } from './proto-reader.ts';
import { ProtoWriter, varintBytes } from './proto-writer.ts';

const requestEncoder = new ExportRequestEncoder();

/** The varint of `n`, the plain way. */
function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}

/** Lengths on both sides of every varint width, and of the widths of n and 3n (a string's UTF-8 bounds). */
const LENGTHS = [0, 1, 3, 4, 5, 42, 43, 44, 125, 126, 127, 128, 129, 5461, 5462, 5463, 16383, 16384, 16385, 40_000];
/** One UTF-16 unit (or pair) of each UTF-8 width, and a lone surrogate (written as U+FFFD). */
const UNITS = ['a', 'é', '日', '🙂', '\ud800'];

function sample(length: number, unit: string, at: 'start' | 'end'): string {
  if (length === 0) return '';
  const ascii = 'abcdefghij'.repeat(Math.ceil(length / 10)).slice(0, Math.max(0, length - unit.length));
  return at === 'start' ? unit + ascii : ascii + unit;
}

describe('ProtoWriter', () => {
  it('varintBytes is the width of the varint, on both sides of every width', () => {
    for (let k = 0; k < 53; k++) {
      for (const n of [2 ** k - 1, 2 ** k, 2 ** k + 1]) expect(varintBytes(n), String(n)).toBe(varint(n).length);
    }
  });

  it('string: a minimal length varint, then the UTF-8 bytes, for every length and character width', () => {
    for (const length of LENGTHS) {
      for (const unit of UNITS) {
        for (const at of ['start', 'end'] as const) {
          const s = sample(length, unit, at);
          const w = new ProtoWriter(16);
          w.string(s);
          const utf8 = Buffer.from(s, 'utf8');
          const expected = Buffer.concat([Buffer.from(varint(utf8.length)), utf8]);
          expect(Buffer.from(w.finish()).equals(expected), `${length} ${JSON.stringify(unit)} ${at}`).toBe(true);
        }
      }
    }
  });

  it('begin/end: the message behind a minimal length, whatever width was reserved', () => {
    for (const width of [1, 2, 3]) {
      for (const length of [0, 127, 128, 16383, 16384, 2_097_151, 2_097_152]) {
        const content = Buffer.alloc(length, 7);
        const w = new ProtoWriter(8);
        w.tag(2, WIRE_LEN);
        const mark = w.begin(width);
        w.raw(content);
        w.end(mark, width);
        w.raw(Buffer.from([9])); // what follows is not shifted over
        const expected = Buffer.concat([Buffer.from([0x12, ...varint(length)]), content, Buffer.from([9])]);
        expect(Buffer.from(w.finish()).equals(expected), `width ${width}, length ${length}`).toBe(true);
      }
    }
  });

  it('fixed64 writes the value modulo 2^64, little-endian', () => {
    for (const v of [0n, 1n, 1776363498123456789n, 2n ** 63n, 2n ** 64n - 1n, -1n, -(2n ** 63n)]) {
      const w = new ProtoWriter(4);
      w.fixed64(v);
      const expected = Buffer.alloc(8);
      expected.writeBigUInt64LE(BigInt.asUintN(64, v));
      expect(Buffer.from(w.finish()).equals(expected), String(v)).toBe(true);
    }
  });
});

// Which fields of each OTLP message are messages themselves (field number -> schema).
type Schema = { [field: number]: Schema };
const anyValue: Schema = {};
const keyValue: Schema = { 2: anyValue };
anyValue[5] = { 1: anyValue }; // ArrayValue.values
anyValue[6] = { 1: keyValue }; // KeyValueList.values
const span: Schema = { 9: keyValue, 11: { 3: keyValue }, 13: { 4: keyValue }, 15: {} };
const request: Schema = { 1: { 1: { 1: keyValue }, 2: { 1: { 3: keyValue }, 2: span } } };

/** Every length of a nested message or string in `bytes` that is not a minimal varint (none in canonical bytes). */
function paddedLengths(bytes: Uint8Array, schema: Schema): string[] {
  const found: string[] = [];
  const walk = (r: ProtoReader, schema: Schema, path: string) => {
    while (r.pos < r.end) {
      const tag = r.tag();
      const field = tag >>> 3;
      if ((tag & 7) !== WIRE_LEN) {
        r.skip(tag & 7, field);
        continue;
      }
      const at = r.pos;
      const len = r.length();
      if (r.pos - at !== varintBytes(len)) found.push(`${path}.${field}: ${len} in ${r.pos - at} bytes`);
      const end = r.pos + len;
      const child = schema[field];
      if (child !== undefined) {
        const outer = r.end;
        r.end = end;
        walk(r, child, `${path}.${field}`);
        r.end = outer;
      }
      r.pos = end;
    }
  };
  walk(new ProtoReader(bytes), schema, 'request');
  return found;
}

/** `s` after a trip through UTF-8: a lone surrogate becomes U+FFFD. */
function utf8(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

/** Every string in `value` (nested arrays included) after a trip through UTF-8. */
function viaUtf8(value: unknown): unknown {
  if (typeof value === 'string') return utf8(value);
  return Array.isArray(value) ? value.map(viaUtf8) : value;
}

describe('ExportRequestEncoder length placeholders', () => {
  it('lengths are minimal and the spans come back, for strings, spans and requests across every width boundary', () => {
    const spans: Span[] = [];
    let i = 0;
    for (const length of LENGTHS) {
      for (const unit of UNITS) {
        const text = sample(length, unit, 'end');
        const id = (++i).toString(16).padStart(16, '0');
        spans.push({
          traceId: '0123456789abcdef' + id, spanId: id, name: text, kind: 1, startNs: 1n, endNs: 2n,
          status: { code: 2, message: text },
          attributes: new AttributeList([['text', text], ['list', [text, 1]], ['k'.repeat(Math.min(length, 200)) || 'e', text]]),
          events: [{ name: 'e', timeNs: 3n, attributes: new AttributeList([['text', text]]) }],
        });
      }
    }
    // One span per request too: requests and their ResourceSpans from a few bytes to megabytes.
    for (const batch of [spans, ...spans.map((s) => [s])]) {
      const bytes = requestEncoder.encode(batch);
      expect(paddedLengths(bytes, request)).toEqual([]);
      const back = decodeExportRequest(bytes).spans;
      expect(back.map((s) => [s.name, s.status.message ?? '', [...s.attributes.entries()]]))
        .toEqual(batch.map((s) => [utf8(s.name), utf8(s.status.message!), [...s.attributes.entries()].map(viaUtf8)]));
    }
  }, 60_000);
});

describe('ExportRequestEncoder buffer size', () => {
  it('starts from the size of the last request\'s spans, and not with gigabytes after one huge span', () => {
    const make = (i: number, text: string): Span => ({
      traceId: '0123456789abcdef0123456789abcdef', spanId: i.toString(16).padStart(16, '0'), name: 's', kind: 1,
      startNs: 1n, endNs: 2n, status: { code: 0 }, attributes: new AttributeList([['text', text]]),
    });
    const encoder = new ExportRequestEncoder();
    encoder.encode([make(1, 'x'.repeat(8_000_000))]);
    const small = Array.from({ length: 1024 }, (_, i) => make(i, 'y'));
    const bytes = encoder.encode(small);
    expect(bytes.buffer.byteLength).toBeLessThanOrEqual(64 * 1024 * 1024);
    expect(decodeExportRequest(bytes).spans.map((s) => s.spanId)).toEqual(small.map((s) => s.spanId));
  });
});
