// A minimal protobuf wire reader: varint, fixed64, fixed32, length-delimited, and skipping of unknown
// fields. One reader walks one request; nested messages are read by narrowing `end` and restoring it,
// so decoding allocates nothing but the values it keeps. Every read is bounds-checked against `end`:
// a length that runs past its enclosing message is an error, never a read past the buffer.
import type { SliceableBuffer, StringCache } from '../bytes/string-cache.ts';
import { MAX_GROUP_DEPTH, OtlpDecodeError, OtlpValueLimitError } from './errors.ts';

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_START_GROUP = 3;
export const WIRE_END_GROUP = 4;
export const WIRE_FIXED32 = 5;

const TWO_32 = 4294967296;

export class ProtoReader {
  readonly buf: SliceableBuffer;
  readonly view: DataView;
  pos: number;
  end: number;
  /** Where short strings come from: the cache of the decoder that made this reader (none: read as they come). */
  readonly strings: StringCache | undefined;
  /** How many more values (attributes, array and kvlist elements, events, links) may be decoded. */
  valuesLeft = Number.POSITIVE_INFINITY;
  /** The limit `valuesLeft` started from, for the message. */
  maxValues = Number.POSITIVE_INFINITY;

  constructor(bytes: Uint8Array, strings?: StringCache) {
    // A Buffer view (no copy) gives native utf8/base64 slicing.
    this.buf = (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) as SliceableBuffer;
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    this.pos = 0;
    this.end = this.buf.length;
    this.strings = strings;
  }

  /** Counts one value before it is built; throws OtlpValueLimitError past the limit. */
  spendValue(): void {
    if (--this.valuesLeft < 0) throw OtlpValueLimitError.protobuf(this.maxValues);
  }

  fail(what: string): never {
    throw new OtlpDecodeError(`invalid protobuf at byte ${this.pos}: ${what}`);
  }

  /** A varint's low 32 bits, unsigned. Reads (and bounds-checks) all of its up to 10 bytes. */
  uint32(): number {
    const buf = this.buf;
    let pos = this.pos;
    if (pos >= this.end) this.fail('truncated varint');
    let b = buf[pos++];
    if (b < 0x80) {
      this.pos = pos;
      return b;
    }
    // Integer arithmetic only (see length()): bits 0-27 by shifts, bits 28-31 from the fifth byte, the
    // rest read and dropped.
    let value = b & 0x7f;
    for (let shift = 7; shift < 70; shift += 7) {
      if (pos >= this.end) this.fail('truncated varint');
      b = buf[pos++];
      if (shift < 28) value |= (b & 0x7f) << shift;
      else if (shift === 28) value = (value | ((b & 0x0f) << 28)) >>> 0;
      if (b < 0x80) {
        this.pos = pos;
        return value;
      }
    }
    this.fail('varint longer than 10 bytes');
  }

  /** An int32 field (enums): negative values arrive sign-extended to 10 bytes. */
  int32(): number {
    return this.uint32() | 0;
  }

  /** A length prefix, checked against the enclosing message. */
  length(): number {
    const buf = this.buf;
    let pos = this.pos;
    // Most lengths (keys, values, attributes) fit in one byte.
    if (pos < this.end && buf[pos] < 0x80) {
      const short = buf[pos];
      this.pos = pos + 1;
      if (short > this.end - this.pos) this.fail('length runs past the end of its message');
      return short;
    }
    // Integer arithmetic only. With `len += (b & 0x7f) * 2 ** shift` here, decoding bench spans (whose
    // span messages all have two-byte lengths) took ~1.55 us/span, against ~1.1 now (docs/performance.md, round 0480). The
    // likely reason: the multiplication types the result as a double in optimised code, and with it the
    // positions every caller computes from a length (string(), enter()), so their arithmetic and
    // bounds checks turn into floating point with conversions back.
    let len = 0;
    for (let shift = 0; ; shift += 7) {
      if (pos >= this.end) this.fail('truncated length');
      const b = buf[pos++];
      if (shift === 28 && b > 0x07) this.fail('length over 2^31 - 1');
      len |= (b & 0x7f) << shift;
      if (b < 0x80) break;
    }
    this.pos = pos;
    if (len > this.end - pos) this.fail('length runs past the end of its message');
    return len;
  }

  bool(): boolean {
    // A bool is a varint; anything non-zero is true (values above 1 included).
    const buf = this.buf;
    let pos = this.pos;
    let nonZero = false;
    for (let i = 0; i < 10; i++) {
      if (pos >= this.end) this.fail('truncated varint');
      const b = buf[pos++];
      if ((b & 0x7f) !== 0) nonZero = true;
      if (b < 0x80) {
        this.pos = pos;
        return nonZero;
      }
    }
    this.fail('varint longer than 10 bytes');
  }

  /** An int64 varint: a number when exact (|v| <= 2^53-1), else a bigint. */
  int64(): number | bigint {
    const buf = this.buf;
    let pos = this.pos;
    let lo = 0;
    let hi = 0;
    let shift = 0;
    for (let i = 0; i < 10; i++) {
      if (pos >= this.end) this.fail('truncated varint');
      const b = buf[pos++];
      const bits = b & 0x7f;
      if (shift < 28) lo |= bits << shift;
      else if (shift === 28) {
        lo |= (bits & 0x0f) << 28;
        hi |= bits >>> 4;
      } else hi |= bits << (shift - 32);
      if (b < 0x80) {
        this.pos = pos;
        // hi is a signed 32-bit int, lo unsigned: hi * 2^32 + lo is exact whenever the result is safe.
        const n = hi * TWO_32 + (lo >>> 0);
        if (Number.isSafeInteger(n)) return n;
        return (BigInt(hi) << 32n) + BigInt(lo >>> 0);
      }
      shift += 7;
    }
    this.fail('varint longer than 10 bytes');
  }

  fixed64(): bigint {
    if (this.end - this.pos < 8) this.fail('truncated fixed64');
    const v = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    return v;
  }

  fixed32(): number {
    if (this.end - this.pos < 4) this.fail('truncated fixed32');
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  double(): number {
    if (this.end - this.pos < 8) this.fail('truncated double');
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /**
   * A length-delimited UTF-8 string. Short ones come from the reader's string cache when it has one: the
   * same keys and enum-like values repeat in every span.
   */
  string(): string {
    const len = this.length();
    const start = this.pos;
    this.pos = start + len;
    const strings = this.strings;
    return strings === undefined ? this.buf.utf8Slice(start, start + len) : strings.utf8(this.buf, this.view, start, start + len);
  }

  /** Skips the value of an unknown field whose tag was just read. */
  skip(wireType: number, field: number, depth = 0): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.uint32();
        return;
      case WIRE_FIXED64:
        if (this.end - this.pos < 8) this.fail('truncated fixed64');
        this.pos += 8;
        return;
      case WIRE_LEN: {
        const len = this.length(); // advances pos past the prefix first
        this.pos += len;
        return;
      }
      case WIRE_FIXED32:
        if (this.end - this.pos < 4) this.fail('truncated fixed32');
        this.pos += 4;
        return;
      case WIRE_START_GROUP: {
        if (depth >= MAX_GROUP_DEPTH) this.fail('groups nested too deeply');
        for (;;) {
          const tag = this.tag();
          if ((tag & 7) === WIRE_END_GROUP) {
            if (tag >>> 3 !== field) this.fail('mismatched end group');
            return;
          }
          this.skip(tag & 7, tag >>> 3, depth + 1);
        }
      }
      default:
        this.fail(`wire type ${wireType}`);
    }
  }

  /** A field tag; field number 0 is never valid. */
  tag(): number {
    const tag = this.uint32();
    if (tag >>> 3 === 0) this.fail('field number 0');
    return tag;
  }
}
