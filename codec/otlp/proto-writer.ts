// A minimal protobuf wire writer into one growing buffer. A nested message is written in place after a
// length placeholder of the width its caller expects (`begin(width)`); when the finished message needs
// another width, its bytes are moved once (`copyWithin`), which is cheaper than sizing every message in
// a first pass. Lengths always end up as minimal varints, so the bytes are the canonical encoding.
import { HIGH_HALF, LOW_HALF } from '../../model/byte-order.ts';
import { hexToBytes } from '../../model/ids.ts';
import type { Utf8WriteBuffer } from '../bytes/output-buffer.ts';
import { Piece } from '../bytes/piece.ts';

/** Bytes of the varint of `n` (n >= 0). */
export function varintBytes(n: number): number {
  // Comparisons, not divisions: this runs twice per span when cutting requests (closedSize).
  if (n < 0x80) return 1;
  if (n < 0x4000) return 2;
  if (n < 0x200000) return 3;
  let size = 4;
  for (let v = Math.floor(n / 0x200000); v >= 0x80; v = Math.floor(v / 0x80)) size++;
  return size;
}

export class ProtoWriter {
  buf: Buffer;
  view: DataView;
  pos = 0;
  /** Scratch for fixed64: a bigint stored here is read back as two 32-bit halves. */
  private readonly fixedSlot = new BigUint64Array(1);
  private readonly fixedHalves = new Uint32Array(this.fixedSlot.buffer);

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
    this.pos = putVarint(this.buf, this.pos, v);
  }

  tag(field: number, wireType: number): void {
    const t = field * 8 + wireType;
    if (t < 0x80) {
      this.ensure(1);
      this.buf[this.pos++] = t;
    } else this.varint(t);
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
    // Through a BigUint64Array (stored modulo 2^64, like BigInt.asUintN(64, v)) and two 32-bit halves:
    // optimised code stores a bigint into a typed array as machine arithmetic, where asUintN and
    // setBigUint64 built a heap BigInt per time (three times per span).
    this.fixedSlot[0] = v;
    this.view.setUint32(this.pos, this.fixedHalves[LOW_HALF], true);
    this.view.setUint32(this.pos + 4, this.fixedHalves[HIGH_HALF], true);
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
      // Short ASCII (most keys and values): one length byte, then the char codes, four per step packed
      // into one little-endian word store while all four are ASCII (as the record writer does).
      this.ensure(n + 4); // + word padding
      const buf = this.buf;
      const view = this.view;
      const start = this.pos;
      let p = start + 1;
      let i = 0;
      for (; i + 4 <= n; i += 4) {
        const c0 = s.charCodeAt(i);
        const c1 = s.charCodeAt(i + 1);
        const c2 = s.charCodeAt(i + 2);
        const c3 = s.charCodeAt(i + 3);
        if ((c0 | c1 | c2 | c3) >= 0x80) break;
        view.setUint32(p, c0 | (c1 << 8) | (c2 << 16) | (c3 << 24), true);
        p += 4;
      }
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[p++] = c;
      }
      if (i === n) {
        buf[start] = n;
        this.pos = p;
        return;
      }
    }
    this.utf8(s);
  }

  /**
   * Any string as UTF-8. Its byte count is between n and 3n (n UTF-16 units; a surrogate pair is 4
   * bytes for 2 units), so when both bounds need the same varint width the text is written once,
   * natively, behind a length of that width; otherwise (near a width boundary) it is measured first.
   */
  private utf8(s: string): void {
    const n = s.length;
    const width = varintBytes(n);
    if (width === varintBytes(3 * n)) {
      this.ensure(width + 3 * n);
      const start = this.pos;
      const len = (this.buf as Utf8WriteBuffer).utf8Write(s, start + width);
      putVarint(this.buf, start, len);
      this.pos = start + width + len;
      return;
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.varint(len);
    this.ensure(len);
    (this.buf as Utf8WriteBuffer).utf8Write(s, this.pos);
    this.pos += len;
  }

  /** A pre-encoded piece (see `Piece`). */
  copy(piece: Piece): void {
    const words = piece.words;
    const n = words.length;
    this.ensure(n * 8); // room for the padding of the last word too
    const view = this.view;
    const p = this.pos;
    for (let i = 0; i < n; i++) view.setBigUint64(p + i * 8, words[i], true);
    this.pos = p + piece.length;
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

  /**
   * Starts a nested message whose tag was written, behind a length placeholder of `width` bytes: the
   * varint width its length is expected to need (1: below 128 bytes, 2: below 16 KiB, 3: below 2 MiB).
   * Returns the mark to pass to `end` with the same width.
   */
  begin(width = 1): number {
    this.ensure(width);
    const mark = this.pos;
    this.pos += width;
    return mark;
  }

  /** Ends the nested message started at `mark` with `width`, writing its length in front of it. */
  end(mark: number, width = 1): void {
    const len = this.pos - mark - width;
    if (len < 0x80 && width === 1) {
      this.buf[mark] = len;
      return;
    }
    const size = varintBytes(len);
    if (size !== width) {
      // The guess was off: move the message to sit right behind a length of its real width.
      if (size > width) this.ensure(size - width);
      this.buf.copyWithin(mark + size, mark + width, this.pos);
      this.pos += size - width;
    }
    putVarint(this.buf, mark, len);
  }
}

/** Writes the varint of `v` at `p` (room checked by the caller); returns the position after it. */
function putVarint(buf: Buffer, p: number, v: number): number {
  while (v >= 0x80) {
    buf[p++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  buf[p] = v;
  return p + 1;
}
