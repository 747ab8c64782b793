// A direct-mapped cache of short strings decoded from request bytes, for the decoders that read strings
// straight from bytes (the OTLP protobuf reader, the tracing-API flat-span decoder); each decoder owns one.
//
// Why: the same attribute keys and enum-like values repeat in every span. Handing out one string
// instance spares building it again, and a Map or list keyed by it then finds its hash already computed.
//
// The slot is chosen from a hash of every byte (`hashBytes`), four at a time. An earlier version sampled
// a few bytes only, and the keys of message arrays (`gen_ai.prompt.0.content` ... `.7.content`), which
// differ only in the index, all fell into one slot and evicted each other span after span: 14 of the ~45
// keys of an LLM-call span missed every time (docs/performance.md, issue 26). A string enters the
// cache only when its length equals its byte count (no multi-byte characters), so the same bytes always
// decode to the same string and a byte-for-byte match may hand out the cached one.
//
// A string is stored only when the same hash missed in its slot just before (as whole KeyValues are,
// otlp/decode-attribute-cache.ts): a value that never repeats (an id, a prompt) then costs no copy into
// the arena and evicts no key, and one that repeats is cached from its second sighting on.

/** Node's Buffer has these native slicers (what `toString(encoding, start, end)` dispatches to). */
export interface NativeSlices {
  hexSlice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
}

export type SliceableBuffer = Buffer & NativeSlices;

/**
 * A 32-bit hash of the `len` bytes at `start` of `buf` (`view` over the same bytes), every byte of them
 * taken into account: a word of four bytes per step (multiplied, then rotated so that a difference in
 * any byte of a word reaches every bit in the steps after it), the last few bytes one by one, and a
 * final mix so that the low bits, which choose a cache slot, depend on all of them. For the short keys
 * and values the caches hold (up to 64 bytes), as cheap as the lookup's one comparison pass.
 */
export function hashBytes(buf: Uint8Array, view: DataView, start: number, len: number): number {
  let h = Math.imul(len, 0x9e3779b1);
  const end = start + len;
  const words = start + (len & ~3);
  let j = start;
  for (; j < words; j += 4) {
    h = Math.imul(h ^ view.getInt32(j, true), 0x01000193);
    h = (h << 15) | (h >>> 17);
  }
  for (; j < end; j++) h = Math.imul(h ^ buf[j], 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h;
}

/** A power of two. */
const CACHE_SLOTS = 4096;
const MAX_CACHED_LENGTH = 64;

/**
 * The cache of one decoder. It belongs to whoever decodes (a receiver's decoder, through the readers it
 * makes), not to the module: two pipelines, or a decoder on a worker thread, then never evict each
 * other's strings or share arrays.
 */
export class StringCache {
  private readonly strings: Array<string | undefined> = new Array(CACHE_SLOTS).fill(undefined);
  /** The bytes of each cached string (slot * MAX_CACHED_LENGTH), compared byte for byte against the input:
   *  a typed-array comparison runs several times faster than charCodeAt on the cached string. */
  private readonly bytes = new Uint8Array(CACHE_SLOTS * MAX_CACHED_LENGTH);
  private readonly bytesView = new DataView(this.bytes.buffer);
  /** Each slot's string length (0: empty), kept apart from the strings: reading `cached.length` loads the
   *  string object from wherever it sits in the heap, a cache miss on most lookups of values that vary
   *  (measured ~9% of decoding when attribute values are all distinct; docs/performance.md, round 0390). */
  private readonly lengths = new Uint8Array(CACHE_SLOTS);
  /** The full hash of the last string that missed in each slot (0: none). */
  private readonly lastMiss = new Int32Array(CACHE_SLOTS);

  /** The UTF-8 text of buf[start, end); `view` is a DataView over the same bytes as `buf`. */
  utf8(buf: SliceableBuffer, view: DataView, start: number, end: number): string {
    const len = end - start;
    if (len === 0) return '';
    if (len > MAX_CACHED_LENGTH) return buf.utf8Slice(start, end);
    const h = hashBytes(buf, view, start, len);
    const slot = h & (CACHE_SLOTS - 1);
    // Never 0 (an empty lastMiss slot); bit 0 is part of the slot anyway.
    const hash = h | 1;
    const at = slot * MAX_CACHED_LENGTH;
    const cachedBytes = this.bytes;
    const cachedView = this.bytesView;
    if (this.lengths[slot] === len) {
      // Four bytes per step through DataViews (unaligned reads are fine), then the tail byte by byte:
      // about half the time of a byte loop for the usual 10-40 byte keys and values.
      const words = len & ~3;
      let j = 0;
      while (j < words && cachedView.getInt32(at + j, true) === view.getInt32(start + j, true)) j += 4;
      if (j === words) {
        while (j < len && cachedBytes[at + j] === buf[start + j]) j++;
        if (j === len) return this.strings[slot] as string;
      }
    }
    const s = buf.utf8Slice(start, end);
    if (s.length === len) {
      if (this.lastMiss[slot] !== hash) {
        this.lastMiss[slot] = hash;
        return s;
      }
      this.strings[slot] = s;
      this.lengths[slot] = len;
      // A word loop, not `cachedBytes.set(buf.subarray(...))`: a Buffer subarray is a new FastBuffer
      // (constructor and species lookup), ~6% of decoding when most strings miss.
      const words = len & ~3;
      let j = 0;
      for (; j < words; j += 4) cachedView.setInt32(at + j, view.getInt32(start + j, true), true);
      for (; j < len; j++) cachedBytes[at + j] = buf[start + j];
    }
    return s;
  }
}
