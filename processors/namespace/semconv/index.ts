// S4: semantic-convention mapping (ag-namespace.md §6.1). Families run only when a span has a key that
// could feed them (one first-character lookup per key), and a family's output is dropped key by key when
// the explicit ag keys or a higher family already hold that key, or a key above or below it.
import type { AttributeList } from '../../../model/attributes/list.ts';
import type { AttrValue } from '../../../model/span.ts';
import { decodeDataSlots, decodeTyped } from '../decode.ts';
import { ClaimList } from '../keys.ts';
import type { Quarantine } from '../quarantine.ts';
import { genai } from './genai.ts';
import { openinference } from './openinference.ts';
import { openllmetry } from './openllmetry.ts';
import { FamilyRunner, type Claims, type Family, type RowMatch } from './rows.ts';
import { vercel } from './vercel.ts';

/** Highest precedence first. */
const FAMILIES: readonly Family[] = [vercel, genai, openinference, openllmetry];

/** First char code (ASCII) -> the triggers starting with it and their family bits. */
const TRIGGERS: { prefix: string; bit: number }[][] = Array.from({ length: 128 }, () => []);
for (let f = 0; f < FAMILIES.length; f++) {
  for (const t of FAMILIES[f].triggers) TRIGGERS[t.charCodeAt(0)].push({ prefix: t, bit: 1 << f });
}
/** Keys starting with `ag` (most keys) skip the lookup, as long as no trigger starts with `ag`. */
const A = 97;
const G = 103;
const SKIP_AG = FAMILIES.every((f) => f.triggers.every((t) => !t.startsWith('ag')));

/** `mask` plus the bits of the families key `k` may feed. */
export function keyFamilies(k: string, mask: number): number {
  const c = k.charCodeAt(0);
  // `!(c < 128)` also covers the empty key, whose charCodeAt(0) is NaN.
  if (!(c < 128) || (SKIP_AG && c === A && k.charCodeAt(1) === G)) return mask;
  const list = TRIGGERS[c];
  for (let i = 0; i < list.length; i++) {
    const t = list[i];
    if ((mask & t.bit) === 0 && k.startsWith(t.prefix)) mask |= t.bit;
  }
  return mask;
}

/** Below a free-form slot a null is content; elsewhere it means absent (and is dropped at S7). */
const FREE_FORM = ['ag.data.parameters.', 'ag.data.inputs.', 'ag.data.outputs.', 'ag.data.internals.', 'ag.meta.',
  'ag.exception.', 'ag.unsupported.'];

function nullIsContent(k: string): boolean {
  for (let i = 0; i < FREE_FORM.length; i++) if (k.startsWith(FREE_FORM[i])) return true;
  return false;
}

/**
 * Adds one explicit `ag` key (after S2, S3 and S5) to the claims; false when it claims nothing.
 *
 * null means absent: it claims nothing, so a second run (where it is gone) maps the same way. `ag` itself
 * is always quarantined (as ag.unsupported._invalid), so it claims nothing either. What was quarantined (or
 * shadowed) on a first run comes back as ag.unsupported[._shadowed].<p>: it still claims ag.<p>, as the
 * original key did then, so a second run maps exactly as the first.
 */
function claimExplicit(claimed: ClaimList, k: string, v: AttrValue): boolean {
  if ((v === null && !nullIsContent(k)) || k === 'ag') return false;
  claimed.add(k);
  if (k.startsWith('ag.unsupported.')) {
    claimed.add(k.startsWith('ag.unsupported._shadowed.') ? 'ag.' + k.slice(25) : 'ag.' + k.slice(15));
  }
  return true;
}

/**
 * True when no explicit key is a null outside a free-form slot: the claims then depend on the keys alone
 * (`ag` itself claims nothing whatever its value, and no row can write it), and rows can be matched
 * against them once per key sequence (SemconvMapper.keep).
 */
export function everyKeyClaims(ag: AttributeList): boolean {
  const keys = ag.keyArray;
  const values = ag.valueArray;
  for (let i = 0; i < keys.length; i++) if (values[i] === null && !nullIsContent(keys[i])) return false;
  return true;
}

/** The rows of each family with a source on a span: by family, undefined for a family with none. */
export type FamilyMatches = (RowMatch | undefined)[];

const NOTHING_CLAIMED: Claims = { conflicts: () => false };

/** The four families ready to run for one processor (their memos and scratch are its own). */
export class SemconvMapper {
  private readonly runners = FAMILIES.map((f) => new FamilyRunner(f));

  /** The rows of the families in `mask` with a source among `keys`; depends on the keys only. */
  match(keys: readonly string[], mask: number): FamilyMatches {
    const matches: FamilyMatches = new Array(FAMILIES.length).fill(undefined);
    for (let f = 0; f < FAMILIES.length; f++) {
      if ((mask & (1 << f)) === 0) continue;
      const m = this.runners[f].match(keys);
      if (m.rows.length > 0) matches[f] = m;
    }
    return matches;
  }

  /** `matches` without the rows the explicit keys `agKeys` claim (whatever their values, everyKeyClaims). */
  keep(matches: FamilyMatches, agKeys: readonly string[]): FamilyMatches {
    const claimed = new ClaimList();
    for (let i = 0; i < agKeys.length; i++) claimExplicit(claimed, agKeys[i], '');
    return matches.map((m, f) => {
      if (m === undefined) return undefined;
      const kept = this.runners[f].keep(m, claimed);
      return kept.rows.length > 0 ? kept : undefined;
    });
  }

  /**
   * Appends the families' output to `ag` (the explicit keys after S2, S3 and S5) and returns the result: the
   * matched rows of each family, highest first, each in row order, against the claims. `explicitKept`:
   * the rows claimed by the explicit keys were already left out (keep), and every explicit key claims.
   *
   * Claims are made by keys in the form a second run would read them back: explicit keys are already
   * decoded when claimed, and each family's output is decoded (S2, S5) before it claims. Without that, a
   * first run could drop a row because of a key that the output then spells differently, and a second
   * run would map it.
   */
  apply(attrs: AttributeList, ag: AttributeList, matches: FamilyMatches, explicitKept: boolean, q: Quarantine): AttributeList {
    let lowest = -1;
    for (let f = 0; f < matches.length; f++) if (matches[f] !== undefined) lowest = f;
    if (lowest < 0) return ag;
    // Claims are gathered only when some row is left to check against them.
    let claimed: ClaimList | undefined;
    // Whether `ag` holds a key that claimed nothing (a null outside a free-form slot): only such a key can
    // be mapped again, and it then takes the new value in place (Map.set). Any other mapped key is new.
    let unclaimed = false;
    if (!explicitKept) {
      claimed = new ClaimList();
      const keys = ag.keyArray;
      const values = ag.valueArray;
      for (let i = 0; i < keys.length; i++) if (!claimExplicit(claimed, keys[i], values[i])) unclaimed = true;
    }
    for (let f = 0; f <= lowest; f++) {
      const m = matches[f];
      if (m === undefined) continue;
      let mapped = this.runners[f].run(attrs, m, claimed ?? NOTHING_CLAIMED);
      if (mapped.size === 0) continue;
      mapped = decodeDataSlots(decodeTyped(mapped), q);
      // Rows of one family never drop each other, so its keys claim only after the whole family ran; the
      // lowest family's claims would serve no one.
      // Into `ag`, or as `ag` while it is empty (the span has no explicit key): no copy.
      const into = ag.size === 0 ? undefined : ag;
      if (into === undefined) ag = mapped;
      const mk = mapped.keyArray;
      const mv = mapped.valueArray;
      for (let j = 0; j < mk.length; j++) {
        const k = mk[j];
        const v = mv[j];
        if (into !== undefined) {
          if (unclaimed) into.set(k, v);
          else into.append(k, v);
        }
        if (v === null && !nullIsContent(k)) unclaimed = true;
        else if (f < lowest) (claimed ??= new ClaimList()).add(k);
      }
    }
    return ag;
  }
}
