// A small tagged binary form of values (docs/decisions/0231-disk-record-codec.md). Two uses: the value
// and attribute-list writer that the THR2 records' span layout (span-codec.ts) writes each field with, and
// the reader of the THR1 records of earlier releases (still read: record.ts), whose payload was the whole
// list of spans as one generic value (plain objects, arrays, attribute lists, strings, numbers, bigints,
// booleans, null and undefined). Lossless for what a Span holds: bigint stays bigint, an attribute list
// keeps its order, an absent key stays absent and [] stays []. The encoder writes no plain objects any
// more (the span layout writes structs by position); the decoder still reads them (T_OBJECT) for THR1.
import { AttributeList } from '../../model/attributes/list.ts';
import type { AttrValue } from '../../model/span.ts';
import { setMember } from '../../model/set-member.ts';

export const T_UNDEFINED = 0;
const T_NULL = 1;
const T_FALSE = 2;
const T_TRUE = 3;
const T_INT32 = 4;
const T_FLOAT64 = 5;
const T_INT64 = 6;
export const T_STRING = 7;
export const T_ARRAY = 8;
const T_MAP = 9;
export const T_OBJECT = 10;
const T_BIGINT_TEXT = 11;
const T_KEY_REF = 12;
const T_STRING_UTF16 = 13;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const SCRATCH_KEEP = 8 * 1024 * 1024;

/**
 * Writes values into one growing scratch buffer: a subclass's append (SpanEncoder.appendSpans, through
 * `appendBy`) leaves a run of values in place, `take` hands the run over whole and `giveBack` returns its
 * buffer (the disk stream's group commits). Its owner keeps one for all its records; the scratch is the
 * owner's, not the module's, so two streams or an encoder on a worker thread never write into each
 * other's buffer.
 */
export abstract class ValueEncoder {
  protected buf: Buffer = Buffer.allocUnsafe(64 * 1024);
  /** `buf` as a DataView, for 8-byte numbers: cheaper than Buffer#writeBigInt64LE / writeDoubleLE,
   *  which range-check on every call. */
  private view = viewOf(this.buf);
  protected pos = 0;
  private readonly keys = new Map<string, number>();
  /** The buffer whose bytes `take()` handed over, until given back. */
  private lent?: Buffer;
  /** A buffer given back after its bytes were written, to fill next (`take`). */
  private spare?: Buffer;

  /**
   * Writes `value` with `write` (a subclass's own layout, SpanEncoder) after the bytes this encoder
   * already holds, behind `headerBytes` unfilled bytes, and returns where that header starts. No
   * allocation and no copy per value: the disk stream appends each record of a group commit here and
   * writes the group straight from `held()`. Keys are numbered afresh for each value, so every value
   * decodes on its own. A `write` that throws leaves nothing behind.
   */
  protected appendBy<T>(headerBytes: number, value: T, write: (value: T) => void): number {
    const start = this.pos;
    this.keys.clear();
    this.ensure(headerBytes);
    this.pos = start + headerBytes;
    try {
      write(value);
    } catch (err) {
      this.rewind(start);
      throw err;
    }
    return start;
  }

  /** The bytes appended since the last `take()`, not copied: valid until the next `appendSpans`. */
  held(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** Forgets the bytes from `start` on (an appended value that was not accepted after all). */
  rewind(start: number): void {
    if (start >= 0 && start <= this.pos) this.pos = start;
    // A huge record refused leaves nothing held: let its grown buffer go now, not at the next take(): after
    // a burst the daemon may stay idle, and would keep the whole record's size (130 MiB after a
    // 200,000-span request).
    if (this.pos === 0 && this.buf.length > SCRATCH_KEEP) this.use(Buffer.allocUnsafe(64 * 1024));
  }

  /**
   * Hands over the bytes appended so far (for the caller to write) and starts again empty, in the buffer
   * given back by `giveBack` if there is one: two buffers in turn, one being written while the other
   * fills, so a busy stream allocates none.
   */
  take(): Buffer {
    const out = this.buf.subarray(0, this.pos);
    this.lent = this.buf;
    this.use(this.spare ?? Buffer.allocUnsafe(64 * 1024));
    this.spare = undefined;
    this.pos = 0;
    return out;
  }

  /** Ends the loan of the bytes `take()` returned (they were written): their buffer is filled next,
   *  unless a huge record grew it past SCRATCH_KEEP. */
  giveBack(taken: Buffer): void {
    const lent = this.lent;
    if (!lent || taken.buffer !== lent.buffer) return;
    this.lent = undefined;
    if (lent.length <= SCRATCH_KEEP) this.spare = lent;
  }

  private use(buf: Buffer): void {
    this.buf = buf;
    this.view = viewOf(buf);
  }

  protected ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(grown, 0, 0, this.pos);
    this.use(grown);
  }

  protected varint(n: number): void {
    this.ensure(5);
    const buf = this.buf;
    let pos = this.pos;
    while (n > 127) {
      buf[pos++] = (n & 127) | 128;
      n >>>= 7;
    }
    buf[pos++] = n;
    this.pos = pos;
  }

  /** Tag byte included: ASCII fast path, UTF-8 otherwise, UTF-16 units for strings UTF-8 cannot hold
   *  (lone surrogates, which JSON input can carry). */
  protected string(s: string, tag: number): void {
    const len = s.length;
    this.ensure(len * 3 + 6);
    const buf = this.buf;
    if (len < 128) {
      const start = this.pos + 2;
      let i = 0;
      for (; i < len; i++) {
        const c = s.charCodeAt(i);
        if (c > 127) break;
        buf[start + i] = c;
      }
      if (i === len) {
        buf[this.pos] = tag;
        buf[this.pos + 1] = len;
        this.pos = start + len;
        return;
      }
    }
    if (!s.isWellFormed()) {
      buf[this.pos++] = T_STRING_UTF16;
      this.varint(len * 2);
      this.ensure(len * 2);
      this.pos += this.buf.write(s, this.pos, 'utf16le');
      return;
    }
    buf[this.pos++] = tag;
    const bytes = Buffer.byteLength(s, 'utf8');
    this.varint(bytes);
    this.pos += this.buf.write(s, this.pos, bytes, 'utf8');
  }

  private key(k: string): void {
    const id = this.keys.get(k);
    if (id !== undefined) {
      if (id < 128) {
        // The usual case, a record's first 128 keys: the tag and a one-byte id.
        this.ensure(2);
        this.buf[this.pos] = T_KEY_REF;
        this.buf[this.pos + 1] = id;
        this.pos += 2;
        return;
      }
      this.ensure(1);
      this.buf[this.pos++] = T_KEY_REF;
      this.varint(id);
      return;
    }
    this.keys.set(k, this.keys.size);
    this.string(k, T_STRING);
  }

  protected value(v: unknown): void {
    this.ensure(10);
    const buf = this.buf;
    switch (typeof v) {
      case 'string':
        this.string(v, T_STRING);
        return;
      case 'number':
        if ((v | 0) === v && (v !== 0 || 1 / v > 0)) {
          const p = this.pos;
          buf[p] = T_INT32;
          buf[p + 1] = v;
          buf[p + 2] = v >> 8;
          buf[p + 3] = v >> 16;
          buf[p + 4] = v >> 24;
          this.pos = p + 5;
        } else {
          buf[this.pos] = T_FLOAT64;
          this.view.setFloat64(this.pos + 1, v, true);
          this.pos += 9;
        }
        return;
      case 'bigint':
        if (v >= INT64_MIN && v <= INT64_MAX) {
          buf[this.pos] = T_INT64;
          this.view.setBigInt64(this.pos + 1, v, true);
          this.pos += 9;
        } else {
          this.string(v.toString(), T_BIGINT_TEXT);
        }
        return;
      case 'boolean':
        buf[this.pos++] = v ? T_TRUE : T_FALSE;
        return;
      case 'undefined':
        buf[this.pos++] = T_UNDEFINED;
        return;
      case 'object':
        if (v === null) {
          buf[this.pos++] = T_NULL;
        } else if (Array.isArray(v)) {
          buf[this.pos++] = T_ARRAY;
          this.varint(v.length);
          for (let i = 0; i < v.length; i++) this.value(v[i]);
        } else if (v instanceof AttributeList) {
          this.attributeList(v);
        } else {
          // Span structs are written by position (span-codec.ts), and attribute values hold no objects
          // (the model flattens them): one here is a value the model does not allow, refused rather
          // than written in a form nothing reads back as it was.
          throw new TypeError('span codec: cannot encode an object that is not an array or an attribute list');
        }
        return;
      default:
        throw new TypeError(`span codec: cannot encode a ${typeof v}`);
    }
  }

  /** An attribute list: its tag, its size, then each key (by reference once seen) and value. */
  protected attributeList(v: AttributeList): void {
    this.ensure(6);
    this.buf[this.pos++] = T_MAP;
    this.varint(v.size);
    const keys = v.keyArray;
    const values = v.valueArray;
    for (let i = 0; i < keys.length; i++) {
      this.key(keys[i]);
      this.attributeValue(values[i]);
    }
  }

  /** An attribute's value: mostly a string, written without going through the type switch. */
  protected attributeValue(x: AttrValue): void {
    if (typeof x === 'string') this.string(x, T_STRING);
    else this.value(x);
  }
}

function viewOf(buf: Buffer): DataView {
  return new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
}

export class Decoder {
  buf: Buffer;
  /** 8-byte numbers are read through a view of the record's own bytes. */
  view: DataView;
  pos: number;
  end: number;
  keys: string[] = [];

  constructor(buf: Buffer, start: number, end: number) {
    this.buf = buf;
    this.view = viewOf(buf);
    this.pos = start;
    this.end = end;
  }

  fail(what: string): never {
    throw new RangeError(`span codec: ${what} at byte ${this.pos}`);
  }

  varint(): number {
    let n = 0;
    let shift = 0;
    let b: number;
    do {
      if (this.pos >= this.end || shift > 28) this.fail('bad length');
      b = this.buf[this.pos++];
      n += (b & 127) * 2 ** shift;
      shift += 7;
    } while (b & 128);
    return n;
  }

  text(encoding: 'utf8' | 'utf16le'): string {
    const n = this.varint();
    if (this.pos + n > this.end) this.fail('string past the end');
    const s = this.buf.toString(encoding, this.pos, this.pos + n);
    this.pos += n;
    return s;
  }

  key(): string {
    const tag = this.buf[this.pos++];
    if (tag === T_KEY_REF) {
      const id = this.varint();
      if (id >= this.keys.length) this.fail('unknown key reference');
      return this.keys[id];
    }
    // A key that is not well-formed UTF-16 (a lone surrogate, which JSON input can carry) was written as
    // UTF-16 units, as such a value is (ValueEncoder.string).
    if (tag !== T_STRING && tag !== T_STRING_UTF16) this.fail('expected a key');
    const k = this.text(tag === T_STRING ? 'utf8' : 'utf16le');
    this.keys.push(k);
    return k;
  }

  value(): unknown {
    if (this.pos >= this.end) this.fail('value past the end');
    const tag = this.buf[this.pos++];
    switch (tag) {
      case T_UNDEFINED:
        return undefined;
      case T_NULL:
        return null;
      case T_FALSE:
        return false;
      case T_TRUE:
        return true;
      case T_INT32: {
        if (this.pos + 4 > this.end) this.fail('number past the end');
        const b = this.buf;
        const p = this.pos;
        this.pos = p + 4;
        return b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24);
      }
      case T_FLOAT64: {
        if (this.pos + 8 > this.end) this.fail('number past the end');
        const v = this.view.getFloat64(this.pos, true);
        this.pos += 8;
        return v;
      }
      case T_INT64: {
        if (this.pos + 8 > this.end) this.fail('number past the end');
        const v = this.view.getBigInt64(this.pos, true);
        this.pos += 8;
        return v;
      }
      case T_STRING:
        return this.text('utf8');
      case T_STRING_UTF16:
        return this.text('utf16le');
      case T_BIGINT_TEXT:
        return BigInt(this.text('utf8'));
      case T_ARRAY: {
        const n = this.varint();
        if (n > this.end - this.pos) this.fail('array longer than the record');
        const a = new Array(n);
        for (let i = 0; i < n; i++) a[i] = this.value();
        return a;
      }
      case T_MAP: {
        const n = this.varint();
        const m = new AttributeList();
        for (let i = 0; i < n; i++) {
          const k = this.key();
          // Keys were unique in the map written. Attribute values are flat, never maps themselves.
          m.append(k, this.value() as AttrValue);
        }
        return m;
      }
      case T_OBJECT: {
        const n = this.varint();
        const o: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) {
          const k = this.key();
          // An own "__proto__" key (JSON.parse can make one) must stay data, not become the prototype.
          setMember(o, k, this.value());
        }
        return o;
      }
      default:
        return this.fail(`unknown tag ${tag}`);
    }
  }
}

/** Decodes one value from `buf[start, end)`; throws RangeError on malformed input. */
export function decodeValue(buf: Buffer, start = 0, end = buf.length): unknown {
  const d = new Decoder(buf, start, end);
  const v = d.value();
  if (d.pos !== end) d.fail('trailing bytes');
  return v;
}
