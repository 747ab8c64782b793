// Small helpers on flat keys shared by the namespace steps.

/** `ag` itself or a key starting with `ag.` (S1). Char codes: this runs on every key of every span. */
export function isAgKey(k: string): boolean {
  return k.length >= 2 && k.charCodeAt(0) === 97 && k.charCodeAt(1) === 103 && (k.length === 2 || k.charCodeAt(2) === 46);
}

/** A key strictly below `prefixDot` (a prefix ending in a dot, such as a prefix row's `src.`). */
export function isBelow(k: string, prefixDot: string): boolean {
  return k.length > prefixDot.length && k.startsWith(prefixDot);
}

/**
 * A set of flat keys that answers "is there a key at, above or below T" in O(depth of T): it keeps the
 * keys and every proper prefix of them. Used for alias conflicts (S3) and family precedence (S4).
 */
export class KeySpace {
  private readonly keys = new Set<string>();
  private readonly prefixes = new Set<string>();

  add(key: string): void {
    this.keys.add(key);
    let i = key.indexOf('.');
    while (i >= 0) {
      this.prefixes.add(key.slice(0, i));
      i = key.indexOf('.', i + 1);
    }
  }

  /** True when some key equals `t`, lies below it (`t.x`) or above it (`t` starts with `key.`). */
  conflicts(t: string): boolean {
    if (this.keys.has(t) || this.prefixes.has(t)) return true;
    for (let i = t.indexOf('.'); i >= 0; i = t.indexOf('.', i + 1)) if (this.keys.has(t.slice(0, i))) return true;
    return false;
  }
}

/** Up to this many keys a scan beats building the prefix sets of a KeySpace (every span pays for the build). */
const SCAN_LIMIT = 24;

/**
 * The same question as KeySpace for S4 claims, answered by scanning the keys while they are few: a span has
 * a handful of `ag` keys and the families ask about a few targets, so the prefix sets would cost more to
 * build than the scans. Turns into a KeySpace past SCAN_LIMIT keys so a huge span stays O(depth) per ask.
 */
export class ClaimList {
  /** Entries [0, count) are the claims; the array is kept across clear() (a FamilyMapper reuses one list). */
  private readonly list: string[] = [];
  private count = 0;
  private space: KeySpace | undefined;

  add(key: string): void {
    if (this.space !== undefined) { this.space.add(key); return; }
    this.list[this.count++] = key;
    if (this.count > SCAN_LIMIT) {
      const space = new KeySpace();
      for (let i = 0; i < this.count; i++) space.add(this.list[i]);
      this.space = space;
    }
  }

  /** Forgets every claim, keeping the array's storage. */
  clear(): void {
    this.count = 0;
    this.space = undefined;
  }

  conflicts(t: string): boolean {
    if (this.space !== undefined) return this.space.conflicts(t);
    const list = this.list;
    const tl = t.length;
    for (let i = 0; i < this.count; i++) {
      const k = list[i];
      const kl = k.length;
      if (kl === tl) { if (k === t) return true; }
      else if (kl > tl) { if (k.charCodeAt(tl) === 46 && k.startsWith(t)) return true; }
      else if (t.charCodeAt(kl) === 46 && t.startsWith(k)) return true;
    }
    return false;
  }
}

/** Returned by tryJson when the text is not JSON. */
export const NOT_JSON: unique symbol = Symbol('not json');

/** JSON.parse that reports failure as a value (client text is never trusted to parse). */
export function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

/** A value that flattens to one attribute value (scalar, or array of scalars). */
export function isFlatValue(v: unknown): boolean {
  if (v === null) return true;
  const t = typeof v;
  if (t === 'string' || t === 'number' || t === 'boolean' || t === 'bigint') return true;
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) {
    const e = v[i];
    const te = typeof e;
    if (!(e === null || te === 'string' || te === 'number' || te === 'boolean' || te === 'bigint')) return false;
  }
  return true;
}

/** A plain JSON object (not an array, not null). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Map);
}

/** A number S7 keeps as a metric: a bigint or a finite number (NaN and infinities have no JSON form: a
 *  writer would turn them into strings, which a second run would then quarantine). */
export function isFiniteNumber(v: unknown): v is number | bigint {
  return typeof v === 'bigint' || (typeof v === 'number' && Number.isFinite(v));
}
