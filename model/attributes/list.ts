// The attributes of a span, event, link, reference, scope or resource (`Attributes` in span.ts): a
// flat map held as two arrays, keys and values in insertion order, with a Map's meaning. It is the one
// attribute container: receivers, the disk stream and namespace build it, and the encoders read it.
//
// Why not a Map: the hot stages only ever append members and then walk them in order. A Map hashes
// every key on `set`, keeps a hash table beside its entries, and its `forEach` reaches the encoder
// through a callback; two arrays are a store per member and a plain indexed loop (docs/performance.md, round 0450 has
// the measurements). Lookups by key are rare (a few per span in some exporters) and stay correct: a
// scan, unless one large list is looked up again and again (a builder that `set`s every member); that
// list then builds a key -> position index of its own.
//
// It implements the whole Map interface (get, has, size, forEach, keys, values, entries, for-of), so
// a reader may use the Map API; it is not a Map, so `instanceof Map` tells the ordered trees of
// namespace (real Maps) from attributes. One difference: deleting a member while an iterator or
// forEach walks the list makes the walk skip the member after it (a Map's would not). Nothing here
// deletes while walking.

/** A scalar attribute value. Integers beyond +-(2^53-1) are held exactly as bigint. */
export type AttrScalar = string | number | bigint | boolean | null;

/** An attribute value in the flat form: a scalar or an array of scalars (types may mix). */
export type AttrValue = AttrScalar | AttrScalar[];

/** Lists up to this many members are always scanned. */
const SCAN_AT_MOST = 16;
/**
 * Scans of one larger list before it gets an index: an exporter's few lookups per
 * span stay scans (building the index costs more than a handful of them), a builder's many go indexed.
 */
const SCANS_BEFORE_INDEX = 8;

export class AttributeList implements Map<string, AttrValue> {
  /** Keys in order, unique (once a decoder's appends are settled: dropRepeats). Read directly by hot
   *  loops; change only through the methods. */
  readonly keyArray: string[];
  /** `valueArray[i]` is the value of `keyArray[i]`. */
  readonly valueArray: AttrValue[];
  /** Key -> position, built once this list is looked up often (undefined: none). */
  private index: Map<string, number> | undefined;
  /** Scans of this list while it is large and has no index. */
  private scans = 0;

  /**
   * An empty list, or one holding `entries` as `new Map(entries)` would (a repeated key: see `set`).
   * `keys` and `values` (for `adopt`) become the list's own arrays.
   */
  constructor(entries?: Iterable<readonly [string, AttrValue]>, keys: string[] = [], values: AttrValue[] = []) {
    this.keyArray = keys;
    this.valueArray = values;
    if (entries !== undefined) for (const [k, v] of entries) this.set(k, v);
  }

  /**
   * A list whose arrays are `keys` and `values` themselves (same length, keys unique), for a builder that
   * filled them (AttributeListBuilder): no copy, and no slack capacity from growing them by appends.
   */
  static adopt(keys: string[], values: AttrValue[]): AttributeList {
    return new AttributeList(undefined, keys, values);
  }

  get size(): number {
    return this.keyArray.length;
  }

  get [Symbol.toStringTag](): string {
    return 'AttributeList';
  }

  /**
   * Adds a member whose key the caller knows is not present yet (a builder whose keys are unique by
   * construction); `set` when in doubt. A duplicate added here would be written twice by encoders.
   */
  append(key: string, value: AttrValue): void {
    this.index?.set(key, this.keyArray.length);
    this.keyArray.push(key);
    this.valueArray.push(value);
  }

  /**
   * Adds members at position `at` (0..size), in their order, moving the later members on: for a
   * processor that adds keys where the canonical order puts them (ag-namespace.md §3.6). The keys must
   * not be present. One move of the tail for all of them (a splice per key allocates and moves each time).
   */
  insert(at: number, keys: readonly string[], values: readonly AttrValue[]): void {
    const k = this.keyArray;
    const v = this.valueArray;
    const n = keys.length;
    for (let i = k.length - 1; i >= at; i--) {
      k[i + n] = k[i];
      v[i + n] = v[i];
    }
    for (let j = 0; j < n; j++) {
      k[at + j] = keys[j];
      v[at + j] = values[j];
    }
    this.index = undefined;
  }

  /** Gives the member at position `i` a new value (a walker that is at it: no search for its key). */
  replaceAt(i: number, value: AttrValue): void {
    this.valueArray[i] = value;
  }

  /** Position of `key`, or -1. */
  private find(key: string): number {
    const keys = this.keyArray;
    if (keys.length > SCAN_AT_MOST) {
      if (this.index !== undefined) return this.index.get(key) ?? -1;
      if (++this.scans > SCANS_BEFORE_INDEX) {
        const index = new Map<string, number>();
        for (let i = 0; i < keys.length; i++) index.set(keys[i], i);
        this.index = index;
        return index.get(key) ?? -1;
      }
    }
    for (let i = 0; i < keys.length; i++) if (keys[i] === key) return i;
    return -1;
  }

  get(key: string): AttrValue | undefined {
    const i = this.find(key);
    return i < 0 ? undefined : this.valueArray[i];
  }

  /** Position of `key` in `keyArray`, or -1: for a caller that then reads or writes it by position. */
  indexOf(key: string): number {
    return this.find(key);
  }

  has(key: string): boolean {
    return this.find(key) >= 0;
  }

  /** As Map.set: a present key keeps its position and takes the new value (ag-namespace.md §1.2). */
  set(key: string, value: AttrValue): this {
    const i = this.find(key);
    if (i >= 0) this.valueArray[i] = value;
    else this.append(key, value);
    return this;
  }

  /**
   * After `append`s that may have repeated a key (a decoder taking members as they come): each key
   * keeps its first position and takes its last value, as if every member had been `set`.
   */
  dropRepeats(): void {
    const keys = this.keyArray;
    const values = this.valueArray;
    const n = keys.length;
    let kept = 0;
    if (n <= SCAN_AT_MOST) {
      for (let i = 0; i < n; i++) {
        const k = keys[i];
        let j = 0;
        while (j < kept && keys[j] !== k) j++;
        if (j < kept) values[j] = values[i];
        else {
          keys[kept] = k;
          values[kept++] = values[i];
        }
      }
    } else {
      const index = new Map<string, number>();
      for (let i = 0; i < n; i++) {
        const k = keys[i];
        const at = index.get(k);
        if (at !== undefined) values[at] = values[i];
        else {
          index.set(k, kept);
          keys[kept] = k;
          values[kept++] = values[i];
        }
      }
      this.index = index;
    }
    if (kept < n) {
      keys.length = kept;
      values.length = kept;
    }
  }

  /** As Map.delete (see the note at the top on deleting during a walk). */
  delete(key: string): boolean {
    const i = this.find(key);
    if (i < 0) return false;
    this.deleteAt(i);
    return true;
  }

  /** Removes the member at position `i` (a walker that is at it: no search for its key). */
  deleteAt(i: number): void {
    this.keyArray.splice(i, 1);
    this.valueArray.splice(i, 1);
    this.index = undefined;
  }

  clear(): void {
    this.keyArray.length = 0;
    this.valueArray.length = 0;
    this.index = undefined;
  }

  forEach(callback: (value: AttrValue, key: string, map: Map<string, AttrValue>) => void, thisArg?: unknown): void {
    const keys = this.keyArray;
    const values = this.valueArray;
    for (let i = 0; i < keys.length; i++) callback.call(thisArg, values[i], keys[i], this);
  }

  keys(): MapIterator<string> {
    return this.keyArray.values();
  }

  values(): MapIterator<AttrValue> {
    return this.valueArray.values();
  }

  /** Live, as a Map's: members added during the walk are visited. */
  *entries(): MapIterator<[string, AttrValue]> {
    const keys = this.keyArray;
    const values = this.valueArray;
    for (let i = 0; i < keys.length; i++) yield [keys[i], values[i]];
  }

  [Symbol.iterator](): MapIterator<[string, AttrValue]> {
    return this.entries();
  }
}
