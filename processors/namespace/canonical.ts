// S7's order for a span that takes its plan: the keys of each tree slot must already be what unflatten
// then flatten would write, so that copying them is the output. The check and the order it gives depend
// on the key sequence only, and the spans of one instrumentation repeat their sequences: the last few
// that passed are remembered.
import type { SlottedKeys } from './layout.ts';
import { regroup } from './regroup.ts';
import { CLOSES_GROUP, FREE, GROUP, GROUP_COUNT, KIND, ROOT_LEN, SLOT_COUNT } from './slots.ts';

/** A slotted key sequence that passed, with its output order (see SlottedKeys.order and ends). */
interface Canonical {
  keys: string[];
  order: Int32Array;
  ends: Int32Array;
}

/** Sequences remembered. */
const RECENT = 8;
/** Beyond this many named (non-index) children under one node the check gives up (it is quadratic). */
const MAX_NAMED_CHILDREN = 64;

function allDigits(k: string, a: number, b: number): boolean {
  if (a === b) return false;
  for (let i = a; i < b; i++) {
    const c = k.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function sameRange(x: string, y: string, a: number, b: number): boolean {
  for (let i = a; i < b; i++) if (x.charCodeAt(i) !== y.charCodeAt(i)) return false;
  return true;
}

/** The order check with its scratch and its memo of recent sequences, owned by one Normaliser. */
export class CanonicalOrder {
  // The check's frames, one per key segment depth, and the named children seen under them.
  private readonly framePos: number[] = [];
  private readonly frameCount: number[] = [];
  private readonly frameSeenBase: number[] = [];
  private readonly seenKey: number[] = [];
  private readonly seenEnd: number[] = [];
  /** One slot's entry indexes. */
  private readonly bucket: number[] = [];
  private readonly recent: Canonical[] = [];
  private recentNext = 0;

  /** Sets f.order and f.ends; false when some slot is not in the order S7 writes, even regrouped. */
  sort(f: SlottedKeys): boolean {
    const known = this.known(f.keys, f.count) ?? this.make(f);
    if (known === undefined) return false;
    f.order = known.order;
    f.ends = known.ends;
    return true;
  }

  private known(keys: string[], count: number): Canonical | undefined {
    const recent = this.recent;
    for (let r = 0; r < recent.length; r++) {
      const e = recent[r].keys;
      if (e.length !== count) continue;
      let i = 0;
      while (i < count && e[i] === keys[i]) i++;
      if (i === count) return recent[r];
    }
    return undefined;
  }

  /**
   * The output order of the slotted keys (each slot's keys as unflatten-then-flatten would write them), made
   * and remembered for this key sequence; undefined when some slot is not canonical even regrouped.
   */
  private make(f: SlottedKeys): Canonical | undefined {
    const { bucket, recent } = this;
    const { keys, slots, count } = f;
    const order = new Int32Array(count);
    const ends = new Int32Array(GROUP_COUNT);
    let j = 0;
    for (let s = 0; s < SLOT_COUNT; s++) {
      if ((f.present & (1 << s)) !== 0) {
        let n = 0;
        for (let i = 0; i < count; i++) if (slots[i] === s) bucket[n++] = i;
        // In input order, else regrouped (regroup.ts); either way the check decides.
        if (!this.inOrder(keys, bucket, n, s) && !(regroup(keys, bucket, n, ROOT_LEN[s]) && this.inOrder(keys, bucket, n, s))) {
          return undefined;
        }
        for (let m = 0; m < n; m++) order[j++] = bucket[m];
      }
      if (CLOSES_GROUP[s]) ends[GROUP[s]] = j;
    }
    const e: Canonical = { keys: keys.slice(0, count), order, ends };
    recent[this.recentNext] = e;
    this.recentNext = (this.recentNext + 1) % RECENT;
    return e;
  }

  /**
   * True when unflatten then flatten of this slot's keys (`bucket`: entry indexes, in input order or as
   * regroup.ts put them) gives back exactly these keys in this order: no key at or below another, the
   * keys under every node contiguous (first appearance order is this order), index children appearing as
   * 0, 1, 2, ... and never as the last segment (a dense run of scalars would become one array value) nor
   * right below the slot root (the slot would become an array). In typed slots any index segment is
   * refused: an array there is a bad leaf.
   */
  private inOrder(keys: string[], bucket: readonly number[], n: number, slot: number): boolean {
      const { framePos, frameCount, frameSeenBase } = this;
    const rootLen = ROOT_LEN[slot];
    const typed = KIND[slot] !== FREE;
    let prev = -1;
    let depth = 0;
    let seenLen = 0;
    for (let m = 0; m < n; m++) {
      const j = bucket[m];
      const k = keys[j];
      let from: number;
      if (k.length === rootLen) {
        // A value at the slot root itself (ag.data.outputs): fine alone, shadowing anything else.
        if (prev >= 0) return false;
        prev = j;
        depth = -1;
        continue;
      }
      if (prev < 0) {
        depth = 0;
        framePos[0] = rootLen;
        frameCount[0] = 0;
        frameSeenBase[0] = 0;
        seenLen = 0;
        from = rootLen;
      } else {
        if (depth < 0) return false; // a root value was seen before
        const p = keys[prev];
        const lim = p.length < k.length ? p.length : k.length;
        let c = rootLen + 1;
        while (c < lim && p.charCodeAt(c) === k.charCodeAt(c)) c++;
        // One key ending where the other continues with a dot: shadowing.
        if (c === p.length) { if (c === k.length || k.charCodeAt(c) === 46) return false; }
        else if (c === k.length && p.charCodeAt(c) === 46) return false;
        from = k.lastIndexOf('.', c - 1);
        while (depth >= 0 && framePos[depth] !== from) { seenLen = frameSeenBase[depth]; depth--; }
        if (depth < 0) return false;
      }
      // Walk the segments of k below the node ending at `from`.
      let d = depth;
      let a = from + 1;
      for (;;) {
        let b = k.indexOf('.', a);
        const last = b < 0;
        if (last) b = k.length;
        if (allDigits(k, a, b)) {
          if (typed || last || d === 0) return false;
          const len = b - a;
          if (len <= 10 && (len === 1 || k.charCodeAt(a) !== 48)) {
            // An index must come next in order, so a dense run reads back in this order.
            let n = 0;
            for (let i = a; i < b; i++) n = n * 10 + (k.charCodeAt(i) - 48);
            if (n !== frameCount[d]) return false;
            frameCount[d]++;
          } else if (!this.namedChild(keys, k, j, d, a, b, seenLen)) return false;
          else seenLen++;
        } else if (!this.namedChild(keys, k, j, d, a, b, seenLen)) return false;
        else seenLen++;
        if (last) break;
        d++;
        framePos[d] = b;
        frameCount[d] = 0;
        frameSeenBase[d] = seenLen;
        a = b + 1;
      }
      depth = d;
      prev = j;
    }
    return true;
  }

  /** Records a named child [a, b) of frame d, false when that child was seen before (it would regroup). */
  private namedChild(keys: string[], k: string, j: number, d: number, a: number, b: number, seenLen: number): boolean {
    const { frameSeenBase, seenKey, seenEnd, frameCount } = this;
    const base = frameSeenBase[d];
    if (seenLen - base >= MAX_NAMED_CHILDREN) return false;
    for (let s = base; s < seenLen; s++) {
      if (seenEnd[s] === b && sameRange(keys[seenKey[s]], k, a, b)) return false;
    }
    seenKey[seenLen] = j;
    seenEnd[seenLen] = b;
    frameCount[d]++;
    return true;
  }
}
