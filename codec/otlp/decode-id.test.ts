import { describe, expect, it } from 'vitest';
import { IdHex } from './decode-id.ts';
import { seededRandom } from '../../test/helpers/random.ts';

/** Buffer's own hex, the reference the JS conversion must match. */
function reference(bytes: Buffer): string {
  return bytes.toString('hex');
}

const ids = new IdHex();
const idHex = (buf: Buffer, start: number, len: number) => ids.id(buf, start, len);
const parentIdHex = (buf: Buffer, start: number, len: number) => ids.parentId(buf, start, len);

describe('IdHex', () => {
  it('matches Buffer hex for every byte value and every length, at any offset', () => {
    const random = seededRandom(61);
    // Every byte value appears at every position of an 8- and a 16-byte id.
    for (let v = 0; v < 256; v++) {
      const id = Buffer.alloc(16, v);
      expect(idHex(id, 0, 16)).toBe(reference(id));
      expect(idHex(id, 8, 8)).toBe(reference(id.subarray(8)));
    }
    for (let i = 0; i < 3000; i++) {
      const len = Math.floor(random() * 21);
      const offset = Math.floor(random() * 5);
      const buf = Buffer.alloc(offset + len + 3);
      for (let j = 0; j < buf.length; j++) buf[j] = Math.floor(random() * 256);
      expect(idHex(buf, offset, len), `len ${len}`).toBe(reference(buf.subarray(offset, offset + len)));
    }
  });

  it('the remembered trace id is never handed out for different bytes', () => {
    // All zeros first (the memo's initial bytes), then ids differing from the one before in one byte
    // only, at each position, then back to an earlier one.
    const zero = Buffer.alloc(16);
    expect(idHex(zero, 0, 16)).toBe('0'.repeat(32));
    expect(idHex(zero, 0, 16)).toBe('0'.repeat(32));
    let previous = Buffer.from(zero);
    for (let pos = 0; pos < 16; pos++) {
      const next = Buffer.from(previous);
      next[pos] ^= 0x5a;
      expect(idHex(next, 0, 16)).toBe(reference(next));
      expect(idHex(next, 0, 16)).toBe(reference(next));
      previous = next;
    }
    expect(idHex(zero, 0, 16)).toBe('0'.repeat(32));
    // The same bytes inside a larger buffer at another offset are the same id.
    const wrapped = Buffer.concat([Buffer.from([1, 2, 3]), previous]);
    expect(idHex(wrapped, 3, 16)).toBe(reference(previous));
  });

  it('parentIdHex matches Buffer hex, and its remembered id is never handed out for different bytes', () => {
    const random = seededRandom(62);
    const zero = Buffer.alloc(8);
    expect(parentIdHex(zero, 0, 8)).toBe('0'.repeat(16));
    expect(parentIdHex(zero, 0, 8)).toBe('0'.repeat(16));
    let previous = Buffer.from(zero);
    for (let pos = 0; pos < 8; pos++) {
      const next = Buffer.from(previous);
      next[pos] ^= 0xa5;
      expect(parentIdHex(next, 0, 8)).toBe(reference(next));
      expect(parentIdHex(next, 0, 8)).toBe(reference(next));
      previous = next;
    }
    // Other lengths (invalid parents, validate's to judge) and a mix of repeats and fresh ids.
    const pool = Array.from({ length: 4 }, () => Buffer.from(Array.from({ length: 8 }, () => Math.floor(random() * 256))));
    for (let i = 0; i < 2000; i++) {
      const len = random() < 0.8 ? 8 : Math.floor(random() * 17);
      const offset = Math.floor(random() * 3);
      const buf = Buffer.alloc(offset + len + 2);
      for (let j = 0; j < buf.length; j++) buf[j] = Math.floor(random() * 256);
      if (len === 8 && random() < 0.6) pool[Math.floor(random() * 4)].copy(buf, offset);
      expect(parentIdHex(buf, offset, len), `len ${len}`).toBe(reference(buf.subarray(offset, offset + len)));
    }
  });
});
