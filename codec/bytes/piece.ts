// Pre-encoded byte strings copied a word at a time: the fixed parts of the span record (record/) and
// the encoded attribute keys of the JSON and protobuf writers.

import { LITTLE_ENDIAN } from '../../model/byte-order.ts';

/**
 * Bytes written often and unchanged (fixed record keys, enum names, encoded attribute keys), held as
 * little-endian 64-bit words, zero-padded to a whole word. The writers' `copy` stores them a word at a
 * time through a DataView: 32-bit words measured ~40% cheaper than `Uint8Array.set` or a byte loop for
 * the 10-40 byte pieces of a record (docs/performance.md, round 0320), 64-bit ones ~35% cheaper again (optimised
 * code keeps the BigInt words in registers; docs/performance.md, round 0500). The padding lands past the end of what is
 * written and is overwritten by what comes next.
 */
export class Piece {
  readonly length: number;
  /** What `copy` stores: word `w` holds bytes 8w..8w+7, least significant first. */
  readonly words: BigUint64Array;
  /** The words' memory, for `set`. */
  private readonly memory: DataView;

  /** `length` zero bytes, to be filled with `set`. */
  constructor(length: number) {
    this.length = length;
    this.words = new BigUint64Array((length + 7) >> 3);
    this.memory = new DataView(this.words.buffer);
  }

  static of(bytes: Uint8Array): Piece {
    const piece = new Piece(bytes.length);
    for (let i = 0; i < bytes.length; i++) piece.set(i, bytes[i]);
    return piece;
  }

  /**
   * Sets byte `i`. `copy` stores the words little-endian, so byte i must be the word's byte of weight
   * i % 8: in memory that is position i on a little-endian machine, and the mirror position within the
   * word (i ^ 7) on a big-endian one.
   */
  set(i: number, byte: number): void {
    this.memory.setUint8(LITTLE_ENDIAN ? i : i ^ 7, byte);
  }
}

/** ASCII text as a piece, for the fixed parts of a format (copied with a writer's `copy`). */
export function ascii(text: string): Piece {
  const piece = new Piece(text.length);
  for (let i = 0; i < text.length; i++) piece.set(i, text.charCodeAt(i));
  return piece;
}

/** Positions of an attribute map that a PiecePositions remembers; later members use the Map alone. */
const POSITIONS = 64;

/**
 * The key written last at each position of one kind of attribute map (a span's, an event's) and its
 * piece. Spans of one instrumentation carry the same keys in the same order, so the key at position i is
 * nearly always the very string that was there in the span before: one comparison instead of hashing it
 * into PieceCache's Map (that lookup was ~2% of the daemon's CPU on the benchmark's spans).
 */
export class PiecePositions {
  readonly keys: string[] = new Array<string>(POSITIONS).fill('');
  readonly pieces: Array<Piece | undefined> = new Array<Piece | undefined>(POSITIONS).fill(undefined);
}

/**
 * The encoded forms of strings that repeat in every span (attribute keys), for a writer's `copy`.
 * Bounded: cleared when full, as the keys are client data; longer keys are not kept.
 */
export class PieceCache {
  private readonly pieces = new Map<string, Piece>();
  private readonly maxEntries: number;
  private readonly maxKeyLength: number;

  constructor(maxEntries: number, maxKeyLength: number) {
    this.maxEntries = maxEntries;
    this.maxKeyLength = maxKeyLength;
  }

  get(key: string): Piece | undefined {
    return this.pieces.get(key);
  }

  /** The piece of `key`, the member at position `i` of a map whose positions `seen` tracks. */
  getAt(key: string, i: number, seen: PiecePositions): Piece | undefined {
    if (i < POSITIONS && seen.keys[i] === key) {
      const piece = seen.pieces[i];
      if (piece !== undefined) return piece;
    }
    const piece = this.pieces.get(key);
    if (piece !== undefined && i < POSITIONS) {
      seen.keys[i] = key;
      seen.pieces[i] = piece;
    }
    return piece;
  }

  /**
   * Keeps the bytes `key` was just written as. They are copied out: a view would keep the writer's
   * whole buffer alive for as long as the key is cached.
   */
  remember(key: string, bytes: Uint8Array): void {
    if (key.length > this.maxKeyLength) return;
    if (this.pieces.size >= this.maxEntries) this.pieces.clear();
    this.pieces.set(key, Piece.of(bytes));
  }
}

/**
 * What an encoder remembers of attribute keys from one batch to the next: their encoded forms (the JSON
 * writer's `,"key":`, the protobuf encoder's KeyValue key field), and the keys of span and event attribute
 * maps by position, as written last (PiecePositions). One per encoder, never shared between pipelines.
 */
export class KeyMemory {
  readonly pieces = new PieceCache(4096, 128);
  readonly spanKeys = new PiecePositions();
  readonly eventKeys = new PiecePositions();
  /** For attribute maps written without positions of their own. */
  readonly otherKeys = new PiecePositions();
}
