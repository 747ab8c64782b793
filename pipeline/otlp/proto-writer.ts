// A minimal protobuf wire writer into one growing buffer. A nested message is written in place after a
// one-byte length placeholder; when the finished message needs a longer length varint, its bytes are
// moved right once (`copyWithin`), which is cheaper than sizing every message in a first pass.
import { hexToBytes } from './hex.ts';

export class ProtoWriter {
  buf: Buffer;
  view: DataView;
  pos = 0;

  constructor(initialSize = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialSize);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.byteLength);
  }

  /** The bytes written so far (a view, not a copy). */
  finish(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  varint(v: number): void {
    this.ensure(10);
    const buf = this.buf;
    while (v >= 0x80) {
      buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    buf[this.pos++] = v;
  }

  tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  /** An int64 varint: negative values as their 64-bit two's complement (10 bytes). */
  int64(v: number | bigint): void {
    if (typeof v === 'number' && v >= 0) {
      this.varint(v);
      return;
    }
    let u = BigInt.asUintN(64, BigInt(v));
    this.ensure(10);
    while (u >= 0x80n) {
      this.buf[this.pos++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    this.buf[this.pos++] = Number(u);
  }

  fixed64(v: bigint): void {
    this.ensure(8);
    this.view.setBigUint64(this.pos, BigInt.asUintN(64, v), true);
    this.pos += 8;
  }

  fixed32(v: number): void {
    this.ensure(4);
    this.view.setUint32(this.pos, v >>> 0, true);
    this.pos += 4;
  }

  double(v: number): void {
    this.ensure(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  /** A length-delimited UTF-8 string (tag written by the caller). */
  string(s: string): void {
    const n = s.length;
    if (n < 128) {
      // Short ASCII (most keys and values): one length byte, then the char codes.
      this.ensure(n + 1);
      const buf = this.buf;
      const start = this.pos;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[start + 1 + i] = c;
      }
      if (i === n) {
        buf[start] = n;
        this.pos = start + 1 + n;
        return;
      }
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.varint(len);
    this.ensure(len);
    this.buf.write(s, this.pos, len, 'utf8');
    this.pos += len;
  }

  /** Bytes already encoded elsewhere, as they are. */
  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** A hex id as a bytes field's length and content. */
  hexBytes(hex: string): void {
    const n = hex.length >> 1;
    this.ensure(n + 5);
    this.varint(n);
    this.pos += hexToBytes(hex, this.buf, this.pos);
  }

  /** Starts a nested message whose tag was written; returns the mark to pass to `end`. */
  begin(): number {
    this.ensure(1);
    return this.pos++;
  }

  /** Ends the nested message started at `mark`, writing its length in front of it. */
  end(mark: number): void {
    const len = this.pos - mark - 1;
    if (len < 0x80) {
      this.buf[mark] = len;
      return;
    }
    let size = 1;
    for (let v = len; v >= 0x80; v = Math.floor(v / 0x80)) size++;
    this.ensure(size - 1);
    this.buf.copyWithin(mark + size, mark + 1, this.pos);
    this.pos += size - 1;
    let v = len;
    let p = mark;
    while (v >= 0x80) {
      this.buf[p++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[p] = v;
  }
}
