// One record on disk (docs/decisions/0230-disk-stream-format.md): a 28-byte header, then the payload.
//
//   0  u32 magic "THR2"          16 u32 span count
//   4  u32 payload length        20 u32 CRC-32 of the payload
//   8  u64 seq (two u32, LE)     24 u32 CRC-32 of header bytes 0..23
//
// The header has its own checksum so a damaged payload still has a trusted length (the scan skips
// exactly that record), and a damaged header is found by scanning for the next magic whose header
// checksum holds. All integers little-endian.
//
// The magic names the payload's layout: "THR2" records (written since issue 26) hold the spans by
// position (span-codec.ts); "THR1" records, written by earlier releases, hold them as generic values
// (codec.ts). Both are read, so a backlog left on disk by an earlier release is delivered after an
// upgrade. An earlier release finds a bad magic in a THR2 record: it cuts the newest segment off at the
// first one (as a torn write) and quarantines those of older segments, so a downgrade loses the records
// left on disk (docs/operating.md).
import { crc32 } from 'node:zlib';
import type { Span } from '../../model/span.ts';
import { decodeValue } from './codec.ts';
import { decodeSpans, type SpanEncoder } from './span-codec.ts';

export const HEADER_BYTES = 28;
/** "THR2" read as little-endian u32: the magic of the records written now. */
export const MAGIC = 0x32524854;
/** "THR1": the records of earlier releases, still read. */
export const MAGIC_V1 = 0x31524854;
const MAGIC_BYTE0 = 0x54; // "T"
/** No accepted request comes near this; a larger length in a header is damage. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024 * 1024;

/**
 * Encodes `spans` as one record after the bytes `encoder` already holds (SpanEncoder.appendSpans), with its
 * header but no seq yet (`stampSeq`, at the returned start). Returns where the record starts and its
 * length; the bytes are `encoder.held()` until the encoder hands them over with `take()`.
 */
export function appendRecord(encoder: SpanEncoder, spans: Span[]): { start: number; length: number } {
  const start = encoder.appendSpans(spans, HEADER_BYTES);
  const buf = encoder.held();
  const length = buf.length - start;
  buf.writeUInt32LE(MAGIC, start);
  buf.writeUInt32LE(length - HEADER_BYTES, start + 4);
  buf.writeUInt32LE(spans.length, start + 16);
  buf.writeUInt32LE(crc32(buf.subarray(start + HEADER_BYTES)), start + 20);
  return { start, length };
}

/** Fills in the seq of the record starting at `buf[at]`, and the header's checksum. */
export function stampSeq(buf: Buffer, seq: number, at = 0): void {
  buf.writeUInt32LE(seq % 0x1_0000_0000, at + 8);
  buf.writeUInt32LE(Math.floor(seq / 0x1_0000_0000), at + 12);
  buf.writeUInt32LE(crc32(buf.subarray(at, at + 24)), at + 24);
}

export type Parsed =
  /** A whole, valid record. */
  | { kind: 'ok'; seq: number; spans: number; end: number }
  /** The bytes end before the record does (a torn write, or the end of a read window). */
  | { kind: 'short' }
  /** Damaged. `end` is set when the header is intact, so the record's extent is known. */
  | { kind: 'bad'; reason: string; end?: number };

/** Checks the record starting at `buf[p]`, with `buf[p, limit)` available. */
export function parseRecord(buf: Buffer, p: number, limit: number): Parsed {
  if (limit - p < HEADER_BYTES) {
    // A short prefix that cannot be the start of a header is damage, not a torn write.
    return limit - p >= 4 && !isMagic(buf.readUInt32LE(p)) ? { kind: 'bad', reason: 'bad magic' } : { kind: 'short' };
  }
  if (!isMagic(buf.readUInt32LE(p))) return { kind: 'bad', reason: 'bad magic' };
  if (crc32(buf.subarray(p, p + 24)) !== buf.readUInt32LE(p + 24)) return { kind: 'bad', reason: 'header checksum mismatch' };
  const length = buf.readUInt32LE(p + 4);
  if (length > MAX_PAYLOAD_BYTES) return { kind: 'bad', reason: 'implausible length' };
  const end = p + HEADER_BYTES + length;
  if (end > limit) return { kind: 'short' };
  if (crc32(buf.subarray(p + HEADER_BYTES, end)) !== buf.readUInt32LE(p + 20)) {
    return { kind: 'bad', reason: 'payload checksum mismatch', end };
  }
  const seq = buf.readUInt32LE(p + 8) + buf.readUInt32LE(p + 12) * 0x1_0000_0000;
  return { kind: 'ok', seq, spans: buf.readUInt32LE(p + 16), end };
}

/** The start of the next whole valid record after `from`, or -1: how a scan resynchronises after damage. */
export function findNextRecord(buf: Buffer, from: number, limit: number): number {
  for (let p = buf.indexOf(MAGIC_BYTE0, from); p !== -1 && p < limit; p = buf.indexOf(MAGIC_BYTE0, p + 1)) {
    if (p + HEADER_BYTES > limit) return -1;
    if (parseRecord(buf, p, limit).kind === 'ok') return p;
  }
  return -1;
}

/** Whether `word` (a header's first four bytes) is the magic of a record this release reads. */
export function isMagic(word: number): boolean {
  return word === MAGIC || word === MAGIC_V1;
}

/** Decodes the spans of a record already checked by `parseRecord`, in the layout its magic names. */
export function decodeRecordSpans(buf: Buffer, p: number, end: number): Span[] {
  if (buf.readUInt32LE(p) === MAGIC) return decodeSpans(buf, p + HEADER_BYTES, end);
  const spans = decodeValue(buf, p + HEADER_BYTES, end);
  if (!Array.isArray(spans)) throw new RangeError('record payload is not a list of spans');
  return spans as Span[];
}
