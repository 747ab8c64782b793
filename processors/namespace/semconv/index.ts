// S4: semantic-convention mapping (ag-namespace.md §6.1). Families run only when a span has a key that
// could feed them (one first-character lookup per key), and a family's output is dropped key by key when
// the explicit ag keys or a higher family already hold that key, or a key above or below it.
import type { Attributes } from '../../../pipeline/span.ts';
import { KeySpace } from '../keys.ts';
import { genai } from './genai.ts';
import { openinference } from './openinference.ts';
import { openllmetry } from './openllmetry.ts';
import { runFamily, type Family } from './rows.ts';
import { vercel } from './vercel.ts';

/** Highest precedence first. */
export const FAMILIES: readonly Family[] = [vercel, genai, openinference, openllmetry];

/** First char code -> [trigger, family bit] pairs. */
const TRIGGERS = new Map<number, [string, number][]>();
for (let f = 0; f < FAMILIES.length; f++) {
  for (const t of FAMILIES[f].triggers) {
    const c = t.charCodeAt(0);
    let list = TRIGGERS.get(c);
    if (list === undefined) TRIGGERS.set(c, (list = []));
    list.push([t, 1 << f]);
  }
}

/** Bit f set when family f may have work on these attributes. */
export function familyMask(attrs: Attributes): number {
  let mask = 0;
  for (const k of attrs.keys()) {
    const list = TRIGGERS.get(k.charCodeAt(0));
    if (list === undefined) continue;
    for (let i = 0; i < list.length; i++) if (k.startsWith(list[i][0])) mask |= list[i][1];
  }
  return mask;
}

/**
 * Appends the mapped keys to `ag` (the explicit keys after S2/S3), highest family first, each in row order.
 * Returns the same map.
 */
export function applySemconv(attrs: Attributes, ag: Attributes, mask: number): Attributes {
  if (mask === 0) return ag;
  const claimed = new KeySpace();
  for (const k of ag.keys()) claimed.add(k);
  for (let f = 0; f < FAMILIES.length; f++) {
    if ((mask & (1 << f)) === 0) continue;
    const mapped = runFamily(FAMILIES[f], attrs);
    if (mapped.size === 0) continue;
    const kept: string[] = [];
    for (const [k, v] of mapped) {
      if (claimed.conflicts(k)) continue;
      ag.set(k, v);
      kept.push(k);
    }
    // Rows of one family never drop each other, so its keys claim only after the whole family ran.
    for (let i = 0; i < kept.length; i++) claimed.add(kept[i]);
  }
  return ag;
}
