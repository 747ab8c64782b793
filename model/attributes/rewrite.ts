// Rewriting the string values of an attribute list in place, for the processors that look at every
// string a span carries (redact, limit): each string value and each string element of an array value,
// whatever the depth of its flat key. A changed value goes back at its position (no search for its key);
// an array is copied only when one of its elements changes.
import type { AttrScalar, AttrValue, AttributeList } from './list.ts';

/** What a rewriter answers to remove the whole attribute. */
export const REMOVE: unique symbol = Symbol('remove the attribute');

export interface StringRewriter {
  /**
   * Optional: decides a member from its key before its strings are looked at: its new value (`v` itself
   * to leave it as it is), REMOVE, or undefined to go on to its strings.
   */
  member?(key: string, v: AttrValue): AttrValue | typeof REMOVE | undefined;
  /** A string value, or a string element of an array value, of the member `key`: `s` itself when it
   *  stays (the common case, checked by identity), the new string, or REMOVE. */
  string(key: string, s: string): string | typeof REMOVE;
}

/** Runs `r` over every member of `attrs`, replacing what it changed and removing what it removed. */
export function rewriteStrings(attrs: AttributeList, r: StringRewriter): void {
  let removed: string[] | undefined;
  const keys = attrs.keyArray;
  const values = attrs.valueArray;
  const member = r.member;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const v = values[i];
    let next: AttrValue | typeof REMOVE | undefined = member === undefined ? undefined : r.member!(key, v);
    if (next === undefined) {
      if (typeof v === 'string') next = r.string(key, v);
      else if (!Array.isArray(v)) continue;
      else next = rewriteArray(key, v, r);
    }
    // Unchanged is the common case: one identity test, and none against REMOVE.
    if (next === v) continue;
    if (next === REMOVE) (removed ??= []).push(key);
    else attrs.replaceAt(i, next);
  }
  if (removed !== undefined) for (const k of removed) attrs.delete(k);
}

/** An array value with its string elements rewritten: the same array when none changed, a copy otherwise. */
function rewriteArray(key: string, v: AttrScalar[], r: StringRewriter): AttrValue | typeof REMOVE {
  let copy: AttrScalar[] | undefined;
  for (let i = 0; i < v.length; i++) {
    const e = v[i];
    if (typeof e !== 'string') continue;
    const t = r.string(key, e);
    if (t === e) continue;
    if (t === REMOVE) return REMOVE;
    (copy ??= v.slice())[i] = t;
  }
  return copy ?? v;
}
