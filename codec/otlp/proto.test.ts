import { describe, expect, it } from 'vitest';
import { hashBytes, StringCache } from '../bytes/string-cache.ts';
import { ProtoReader, WIRE_FIXED32, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from './proto-reader.ts';
import { ProtoWriter } from './proto-writer.ts';
import { OtlpDecodeError } from './errors.ts';

function roundTripInt64(v: number | bigint): number | bigint {
  const w = new ProtoWriter(8);
  w.int64(v);
  return new ProtoReader(w.finish()).int64();
}

describe('protobuf wire', () => {
  it('int64 varints keep every value exactly, as number when safe and bigint beyond', () => {
    const cases: Array<[number | bigint, number | bigint]> = [
      [0, 0], [1, 1], [-1, -1], [127, 127], [128, 128], [2 ** 31, 2 ** 31], [-(2 ** 31), -(2 ** 31)],
      [2 ** 32, 2 ** 32], [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
      [Number.MIN_SAFE_INTEGER, Number.MIN_SAFE_INTEGER],
      [2n ** 53n, 2n ** 53n], [-(2n ** 53n), -(2n ** 53n)],
      [2n ** 63n - 1n, 2n ** 63n - 1n], [-(2n ** 63n), -(2n ** 63n)], [123n, 123],
    ];
    for (const [input, expected] of cases) expect(roundTripInt64(input)).toStrictEqual(expected);
  });

  it('uint32 varints keep the low 32 bits of every width, ten bytes at most', () => {
    const cases = [0, 1, 127, 128, 16_383, 16_384, 2 ** 28 - 1, 2 ** 28, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1];
    for (const v of cases) {
      const w = new ProtoWriter(8);
      w.varint(v);
      expect(new ProtoReader(w.finish()).uint32(), String(v)).toBe(v);
    }
    // Wider values keep their low 32 bits (as protobuf's uint32 does); int32 reads them signed.
    const wide = new ProtoWriter(8);
    wide.int64(-2);
    expect(new ProtoReader(wide.finish()).uint32()).toBe(2 ** 32 - 2);
    const sixtyFour = Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x8f, 0x80, 0x80, 0x80, 0x80, 0x01]);
    expect(new ProtoReader(sixtyFour).uint32()).toBe(2 ** 32 - 1);
    expect(new ProtoReader(sixtyFour).int32()).toBe(-1);
    // Padded: a zero in every byte but the first.
    expect(new ProtoReader(Uint8Array.from([0x85, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00])).uint32()).toBe(5);
  });

  it('negative int64 takes ten bytes (two\'s complement), as protobuf requires', () => {
    const w = new ProtoWriter(8);
    w.int64(-1);
    expect(Array.from(w.finish())).toEqual([255, 255, 255, 255, 255, 255, 255, 255, 255, 1]);
  });

  it('nested messages get their length written in front, also when it needs several bytes', () => {
    for (const size of [0, 1, 127, 128, 300, 20_000, 3_000_000]) {
      const w = new ProtoWriter(16);
      w.tag(1, WIRE_LEN);
      const m = w.begin();
      w.tag(2, WIRE_LEN);
      w.string('x'.repeat(size));
      w.end(m);
      w.tag(3, WIRE_VARINT);
      w.varint(7);
      const r = new ProtoReader(w.finish());
      expect(r.tag()).toBe((1 << 3) | WIRE_LEN);
      const len = r.length();
      const end = r.pos + len;
      expect(r.tag()).toBe((2 << 3) | WIRE_LEN);
      expect(r.string()).toHaveLength(size);
      expect(r.pos).toBe(end);
      expect(r.tag()).toBe((3 << 3) | WIRE_VARINT);
      expect(r.uint32()).toBe(7);
    }
  });

  it('reads length prefixes of one, two and more bytes, padded ones too, and checks each against the end', () => {
    const prefix = (n: number, width: number) => Array.from({ length: width }, (_, k) => ((n / 2 ** (7 * k)) & 0x7f) | (k < width - 1 ? 0x80 : 0));
    for (const n of [0, 1, 127, 128, 255, 16_383, 16_384, 2_097_151, 2_097_152]) {
      const minimal = Math.max(1, Math.ceil(Math.log2(n + 1) / 7));
      for (const width of [minimal, minimal + 1, 5]) {
        if (width > 5) continue;
        const head = prefix(n, width);
        const fits = new ProtoReader(Uint8Array.from([...head, ...new Array<number>(n).fill(0x61)]));
        expect(fits.length(), `${n} in ${width} bytes`).toBe(n);
        expect(fits.pos).toBe(width);
        // One byte short of the length: an error, never a read past the end.
        const short = new ProtoReader(Uint8Array.from([...head, ...new Array<number>(Math.max(0, n - 1)).fill(0x61)]));
        if (n > 0) expect(() => short.length(), `${n} in ${width} bytes, short`).toThrow(OtlpDecodeError);
      }
    }
    // A prefix cut off after its first byte.
    expect(() => new ProtoReader(Uint8Array.from([0x80])).length()).toThrow(OtlpDecodeError);
    expect(() => new ProtoReader(Uint8Array.from([0xff, 0xff])).length()).toThrow(OtlpDecodeError);
  });

  it('strings: ASCII, multi-byte UTF-8 and astral characters', () => {
    for (const s of ['', 'a', 'héllo wörld', '日本語のテキスト', '🙂 emoji 🚀', 'x'.repeat(23) + 'é']) {
      const w = new ProtoWriter(4);
      w.string(s);
      expect(new ProtoReader(w.finish()).string()).toBe(s);
    }
  });

  it('strings through a string cache: the same text on every read, whether it misses, is stored or hits', () => {
    const strings = new StringCache();
    const texts = ['', 'a', 'service.name', 'service.nam3', 'sërvice.name', 'héllo', 'x'.repeat(64), 'x'.repeat(65)];
    for (let round = 0; round < 3; round++) {
      for (const s of texts) {
        const w = new ProtoWriter(4);
        w.string(s);
        expect(new ProtoReader(w.finish(), strings).string()).toBe(s);
      }
    }
  });

  it('skips unknown fields of every wire type, groups included', () => {
    const w = new ProtoWriter(64);
    w.tag(9, WIRE_VARINT); w.varint(300);
    w.tag(10, WIRE_FIXED64); w.fixed64(5n);
    w.tag(11, WIRE_LEN); w.string('skip me');
    w.tag(12, WIRE_FIXED32); w.fixed32(9);
    w.tag(13, 3); w.tag(1, WIRE_VARINT); w.varint(1); w.tag(13, 4); // a group
    w.tag(1, WIRE_VARINT); w.varint(42);
    const r = new ProtoReader(w.finish());
    let found = -1;
    while (r.pos < r.end) {
      const tag = r.tag();
      if (tag === ((1 << 3) | WIRE_VARINT)) found = r.uint32();
      else r.skip(tag & 7, tag >>> 3);
    }
    expect(found).toBe(42);
  });

  it('refuses what is not well formed instead of reading past the end', () => {
    const bad: number[][] = [
      [0x0a, 0x05, 0x01], // length past the end
      [0x08], // truncated varint
      [0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], // 11-byte varint
      [0x09, 0x01, 0x02], // truncated fixed64
      [0x0f], // wire type 7
      [0x00], // field 0
      [0x0c], // end group without start
      [0x0b, 0x08, 0x01], // group never closed
      [0x0a, 0xff, 0xff, 0xff, 0xff, 0x7f], // length over 2^32
    ];
    for (const bytes of bad) {
      const r = new ProtoReader(new Uint8Array(bytes));
      expect(() => {
        while (r.pos < r.end) {
          const tag = r.tag();
          r.skip(tag & 7, tag >>> 3);
        }
      }, JSON.stringify(bytes)).toThrow(OtlpDecodeError);
    }
  });

  it('strings read the same through the string cache: look-alikes, non-ASCII, invalid UTF-8, repeats', () => {
    // Same length, differing in one byte; then UTF-8 of the same byte length as ASCII neighbours;
    // invalid bytes; and one string past the cached length.
    const texts = ['session-1', 'session-2', 'sessxon-1', 'a', 'b', 'ab', 'abc', 'abd', 'é', 'éa', 'aé', 'ü😀',
      'What is the weather in city number 42?', 'What is the weather in city number 43?', 'x'.repeat(64),
      'x'.repeat(65), 'x'.repeat(63) + 'é'];
    const raw: Buffer[] = texts.map((t) => Buffer.from(t, 'utf8'));
    raw.push(Buffer.from([0x61, 0xe9, 0x62]), Buffer.from([0x61, 0x3f, 0x62]), Buffer.from([0xff]));
    const expected = raw.map((b) => b.toString('utf8'));
    const fields: Buffer[] = [];
    for (let round = 0; round < 3; round++) for (const b of raw) fields.push(Buffer.from([(1 << 3) | WIRE_LEN, b.length]), b);
    const r = new ProtoReader(Buffer.concat(fields), new StringCache());
    const got: string[] = [];
    while (r.pos < r.end) {
      r.tag();
      got.push(r.string());
    }
    expect(got).toEqual([...expected, ...expected, ...expected]);
  });

  it('the cache compares every byte: look-alikes that share a slot', () => {
    // Strings of length 10 in the slot of `abcdefghij`, found by changing three bytes of its first
    // word, its second word or its two-byte tail: the comparison must tell each part apart.
    const base = 'abcdefghij';
    const lookAlikes = [[1, 2, 3], [4, 5, 6], [8, 9]].map((at) => sameSlot(base, at));
    const texts = [base, base, ...lookAlikes, ...lookAlikes, base, ...lookAlikes];
    const fields: Buffer[] = [];
    for (const t of texts) fields.push(Buffer.from([(1 << 3) | WIRE_LEN, t.length]), Buffer.from(t));
    const r = new ProtoReader(Buffer.concat(fields), new StringCache());
    const got: string[] = [];
    while (r.pos < r.end) {
      r.tag();
      got.push(r.string());
    }
    expect(got).toEqual(texts);
  });
});

/** The string cache's slot of an ASCII text (string-cache.ts: the hash's low 12 bits). */
function slotOf(text: string): number {
  const b = Buffer.from(text);
  return hashBytes(b, new DataView(b.buffer, b.byteOffset, b.length), 0, b.length) & 4095;
}

/** A text other than `base` in its slot, differing from it only at the offsets `at` (letters there). */
function sameSlot(base: string, at: number[]): string {
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const want = slotOf(base);
  const total = letters.length ** at.length;
  for (let n = 0; n < total; n++) {
    const chars = [...base];
    for (let k = 0, m = n; k < at.length; k++, m = Math.floor(m / letters.length)) chars[at[k]] = letters[m % letters.length];
    const text = chars.join('');
    if (text !== base && slotOf(text) === want) return text;
  }
  throw new Error(`no look-alike of ${base} at ${at.join(',')}`);
}
