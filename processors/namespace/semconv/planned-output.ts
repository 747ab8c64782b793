// The output of a planned semantic-convention family (plan.ts, rows.ts): a family maps one or two keys
// per span, and a fresh Map for that (plus its `set`s, then `keys()` and `get` to read it back) was ~6%
// of the namespace stage on the OTLP bench (profiled). One instance is reused for every span.
import type { AttrValue } from '../../../model/span.ts';
import { isTyped } from '../decode.ts';
import { isBelow } from '../keys.ts';

/** What rows write into: an attribute list on the general path, a PlannedOutput on the plan path. */
export interface RowOutput {
  get(key: string): AttrValue | undefined;
  has(key: string): boolean;
  set(key: string, value: AttrValue): unknown;
}

/**
 * An insertion-ordered key -> value list with a Map's `get`/`has`/`set` meaning (setting a present key
 * replaces its value in place). Lookups are linear: outputs are a handful of keys; a prefix row that
 * writes many only makes it slower, never different.
 */
export class PlannedOutput implements RowOutput {
  readonly keys: string[] = [];
  readonly values: AttrValue[] = [];
  size = 0;

  /** Emptied for the next span (by count: the arrays keep their storage). */
  clear(): void {
    this.size = 0;
  }

  private indexOf(key: string): number {
    const keys = this.keys;
    for (let i = 0; i < this.size; i++) if (keys[i] === key) return i;
    return -1;
  }

  get(key: string): AttrValue | undefined {
    const i = this.indexOf(key);
    return i < 0 ? undefined : this.values[i];
  }

  has(key: string): boolean {
    return this.indexOf(key) >= 0;
  }

  set(key: string, value: AttrValue): this {
    const i = this.indexOf(key);
    if (i >= 0) this.values[i] = value;
    else this.append(key, value);
    return this;
  }

  /** Adds a key known to be absent (no lookup). */
  append(key: string, value: AttrValue): void {
    this.keys[this.size] = key;
    this.values[this.size] = value;
    this.size++;
  }

  /** Some key is strictly below `prefixDot` (a prefix ending in a dot). */
  anyBelow(prefixDot: string): boolean {
    for (let i = 0; i < this.size; i++) if (isBelow(this.keys[i], prefixDot)) return true;
    return false;
  }

  /** Some value is an `@ag.type=` string (S2 would change the output). */
  anyTyped(): boolean {
    for (let i = 0; i < this.size; i++) if (isTyped(this.values[i])) return true;
    return false;
  }
}
