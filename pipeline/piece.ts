// Pre-encoded byte strings copied a word at a time: the fixed parts of the span record (record/) and
// the encoded attribute keys of the JSON and protobuf writers.

/**
 * Bytes written often and unchanged (fixed record keys, enum names, encoded attribute keys), held as
 * little-endian 64-bit words, zero-padded to a whole word. The writers' `copy` stores them a word at a
 * time through a DataView: 32-bit words measured ~40% cheaper than `Uint8Array.set` or a byte loop for
 * the 10-40 byte pieces of a record (docs/decisions/0320), 64-bit ones ~35% cheaper again (optimised
 * code keeps the BigInt words in registers; decision 0500). The padding lands past the end of what is
 * written and is overwritten by what comes next.
 */
export class Piece {
  readonly length: number;
  /** What `copy` stores: word `w` holds bytes 8w..8w+7, least significant first. */
  readonly words: BigUint64Array;
  /** The bytes, for `set`. */
  private readonly bytes: DataView;

  /** `length` zero bytes, to be filled with `set` and `update`. */
  constructor(length: number) {
    this.length = length;
    this.words = new BigUint64Array((length + 7) >> 3);
    this.bytes = new DataView(new ArrayBuffer(this.words.length * 8));
  }

  static of(bytes: Uint8Array): Piece {
    const piece = new Piece(bytes.length);
    for (let i = 0; i < bytes.length; i++) piece.set(i, bytes[i]);
    piece.update();
    return piece;
  }

  /** Sets byte `i`; what `copy` writes changes at the next `update()`. */
  set(i: number, byte: number): void {
    this.bytes.setUint8(i, byte);
  }

  /**
   * Takes the bytes set since the last update into the words. Once per change, not per byte: a word
   * rebuilt per `set` made a time format's per-second update ~30 ns dearer.
   */
  update(): void {
    // Read as little-endian, as `copy` stores them: the same bytes whatever the machine's byte order.
    for (let w = 0; w < this.words.length; w++) this.words[w] = this.bytes.getBigUint64(w * 8, true);
  }
}

/** ASCII text as a piece, for the fixed parts of a format (copied with a writer's `copy`). */
export function ascii(text: string): Piece {
  const piece = new Piece(text.length);
  for (let i = 0; i < text.length; i++) piece.set(i, text.charCodeAt(i));
  piece.update();
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
