// A decoder's cache of whole KeyValue messages that decode to one scalar: their bytes, key and value.
//
// Why: instrumentations send the same attribute again and again (span type, model, operation, small
// token counts, session ids), and a KeyValue of up to 64 bytes is one comparison against the bytes it
// had last time instead of two string-cache lookups (two slot hashes, two comparisons), the tag and
// length parsing in between and the AnyValue dispatch. Decoding is a pure function of the bytes, so
// equal bytes may hand out the same key and value; values are immutable scalars (strings, numbers,
// bigints, booleans, null), never arrays, so sharing them between spans is safe.
//
// Direct mapped like the string cache, with its hash of every byte (hashBytes): the KeyValues of a
// message array (`gen_ai.prompt.1.role` = `user`, `gen_ai.prompt.3.role` = `user`, ...) differ only in
// the index, and a hash of a few sampled bytes put them all in one slot, where they evicted each other
// in every span (docs/performance.md, issue 26). A miss costs the hash and a comparison that usually
// stops at the first word.
import type { AttrScalar } from '../../model/span.ts';
import { hashBytes } from '../bytes/string-cache.ts';

const SLOTS = 4096;
/** KeyValues up to this many bytes are cached (key and value are each at most ~60 bytes then). */
export const MAX_CACHED_ATTRIBUTE = 64;
/** Smaller KeyValues (empty keys, one-letter ones) are rare and cheap to decode: not cached. */
const MIN_CACHED_ATTRIBUTE = 8;

/**
 * The slot hash of the KeyValue of `size` bytes at `start` of `b` (`view` over the same bytes), never 0,
 * or 0 when its size is not cached. Bits 1-12 choose the slot (bit 0 is forced to 1, so slots taken
 * from the low bits would all be odd, half the table unused); all of it tells repeated misses apart
 * (see `remember`).
 */
export function attributeHash(b: Uint8Array, view: DataView, start: number, size: number): number {
  if (size > MAX_CACHED_ATTRIBUTE || size < MIN_CACHED_ATTRIBUTE) return 0;
  return hashBytes(b, view, start, size) | 1;
}

function slotOf(hash: number): number {
  return (hash >>> 1) & (SLOTS - 1);
}

/** One decoder's cache (see the top of this file). */
export class AttributeCache {
  private readonly keys: string[] = new Array<string>(SLOTS).fill('');
  private readonly values: AttrScalar[] = new Array<AttrScalar>(SLOTS).fill(null);
  /** Byte size of each slot's KeyValue; 0 marks an empty slot (a cached KeyValue has at least 8 bytes). */
  private readonly sizes = new Int32Array(SLOTS);
  private readonly bytes = new Uint8Array(SLOTS * MAX_CACHED_ATTRIBUTE);
  private readonly bytesView = new DataView(this.bytes.buffer);
  /** The hash of the last KeyValue that missed in each slot (0: none). */
  private readonly lastMiss = new Int32Array(SLOTS);

  /** True when the slot of `hash` holds exactly the `size` bytes at `start` of `b` (viewed also as `view`). */
  has(hash: number, b: Uint8Array, view: DataView, start: number, size: number): boolean {
    const slot = slotOf(hash);
    if (this.sizes[slot] !== size) return false;
    const bytes = this.bytes;
    const bytesView = this.bytesView;
    const at = slot * MAX_CACHED_ATTRIBUTE;
    // Four bytes per step, then the tail: as in the string cache (docs/performance.md, round 0260, round 2).
    const words = size & ~3;
    let j = 0;
    while (j < words && bytesView.getInt32(at + j, true) === view.getInt32(start + j, true)) j += 4;
    if (j !== words) return false;
    while (j < size && bytes[at + j] === b[start + j]) j++;
    return j === size;
  }

  key(hash: number): string {
    return this.keys[slotOf(hash)];
  }

  value(hash: number): AttrScalar {
    return this.values[slotOf(hash)];
  }

  /**
   * Offers the KeyValue of `size` bytes at `start`, which decoded to `key` and the scalar `value` and
   * missed the cache. It is stored only when the same hash missed in its slot just before: a KeyValue
   * that never repeats (an id, a unique text) then costs no copy and evicts nothing, and one that
   * repeats is cached from its second sighting on. Measured: the copies of never-repeating KeyValues
   * were ~8% of decoding a request whose attribute values are all distinct.
   */
  remember(hash: number, b: Uint8Array, view: DataView, start: number, size: number, key: string, value: AttrScalar): void {
    const slot = slotOf(hash);
    if (this.lastMiss[slot] !== hash) {
      this.lastMiss[slot] = hash;
      return;
    }
    this.keys[slot] = key;
    this.values[slot] = value;
    this.sizes[slot] = size;
    const bytes = this.bytes;
    const bytesView = this.bytesView;
    const at = slot * MAX_CACHED_ATTRIBUTE;
    const words = size & ~3;
    let j = 0;
    for (; j < words; j += 4) bytesView.setInt32(at + j, view.getInt32(start + j, true), true);
    for (; j < size; j++) bytes[at + j] = b[start + j];
  }
}
