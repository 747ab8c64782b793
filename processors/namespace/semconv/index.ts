// S4: semantic-convention mapping (ag-namespace.md §6.1). Families run only when a span has a key that
// could feed them (one first-character lookup per key), and a family's output is dropped key by key when
// the explicit ag keys or a higher family already hold that key, or a key above or below it.
import { AttributeList } from '../../../model/attributes/list.ts';
import type { AttrValue, Attributes } from '../../../model/span.ts';
import { anyStringDataSlot, decodeDataSlots, decodeTyped } from '../decode.ts';
import { ClaimList } from '../keys.ts';
import type { Quarantine } from '../quarantine.ts';
import { genai } from './genai.ts';
import { langfuse } from './langfuse.ts';
import { openinference } from './openinference.ts';
import { openllmetry } from './openllmetry.ts';
import { indexFamily, planFamily, runPlannedFamily, type FamilyIndex, type FamilyPlan } from './rows.ts';
import { PlannedOutput } from './planned-output.ts';
import { vercel } from './vercel.ts';

/** Highest precedence first, each with the lookup tables of its rows. */
export const FAMILIES: readonly FamilyIndex[] = [vercel, genai, openinference, openllmetry, langfuse].map(indexFamily);

/** First char code (ASCII) -> the triggers starting with it and their family bits. */
const TRIGGERS: { prefix: string; bit: number }[][] = Array.from({ length: 128 }, () => []);
for (let f = 0; f < FAMILIES.length; f++) {
  for (const t of FAMILIES[f].family.triggers) TRIGGERS[t.charCodeAt(0)].push({ prefix: t, bit: 1 << f });
}
/** Keys starting with `ag` (most keys) skip the lookup, as long as no trigger starts with `ag`. */
const A = 97;
const G = 103;
const SKIP_AG = FAMILIES.every((f) => f.family.triggers.every((t) => !t.startsWith('ag')));

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

/** Bit f set when family f may have work on these attributes. */
export function familyMask(attrs: Attributes): number {
  let mask = 0;
  for (const k of attrs.keys()) mask = keyFamilies(k, mask);
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
 * Adds one explicit `ag` key (after S2, S3 and S5) to the claims.
 *
 * null means absent: it claims nothing, so a second run (where it is gone) maps the same way. `ag` itself
 * is always quarantined (as ag.unsupported._invalid), so it claims nothing either. What was quarantined (or
 * shadowed) on a first run comes back as ag.unsupported[._shadowed].<p>: it still claims ag.<p>, as the
 * original key did then, so a second run maps exactly as the first.
 */
export function claimExplicit(claimed: ClaimList, k: string, v: AttrValue): void {
  if ((v === null && !nullIsContent(k)) || k === 'ag') return;
  claimed.add(k);
  if (k.startsWith('ag.unsupported.')) {
    claimed.add(k.startsWith('ag.unsupported._shadowed.') ? 'ag.' + k.slice(25) : 'ag.' + k.slice(15));
  }
}

/**
 * The families in `mask` planned for spans with exactly these keys and these explicit claims, highest
 * first, leaving out families with no row to run (plan.ts).
 */
export function planFamilies(keys: readonly string[], claimed: ClaimList, mask: number): FamilyPlan[] {
  const plans: FamilyPlan[] = [];
  for (let f = 0; f < FAMILIES.length; f++) {
    if ((mask & (1 << f)) === 0) continue;
    const plan = planFamily(FAMILIES[f], keys, claimed);
    if (plan.rows.length > 0) plans.push(plan);
  }
  return plans;
}

/**
 * True when S2 or S5 would change this family's output: an `@ag.type=` value, or (for a family that can
 * reach a data slot) a string at one.
 */
function needsDecoding(out: PlannedOutput, dataSlots: boolean): boolean {
  return out.anyTyped() || (dataSlots && anyStringDataSlot(out));
}

/**
 * Runs planned families over one span at a time, with the lists it reuses from span to span; one per
 * Normaliser.
 *
 * Rows write into reused lists rather than a Map each (on LLM-call spans, three families mapping ~35 keys,
 * the Maps, their merge and their claims were ~6% of the daemon's CPU, measured in docs/decisions/0460).
 * When S2 or S5 would rewrite some family's output, the span is mapped into attribute lists instead
 * (mapDecoding), decoding each family's output before the next family claims.
 */
export class FamilyMapper {
  /** The output of the families of the current span, merged. */
  private readonly all = new PlannedOutput();
  /** One lower family's output before it is merged into `all`. */
  private readonly family = new PlannedOutput();
  /** What higher families mapped on the current span, for the lower ones. */
  private readonly laterClaims = new ClaimList();

  /**
   * The families' output for a span with the keys they were planned for:
   * the explicit claims were applied when planning, so only what a higher family maps here is checked.
   * The PlannedOutput is reused: read it before the next call.
   */
  map(plans: readonly FamilyPlan[], attrs: Attributes, q: Quarantine): Attributes | PlannedOutput | undefined {
    const { all, laterClaims } = this;
    all.clear();
    laterClaims.clear();
    // Whether `all` holds a key that claimed nothing (null outside a free-form slot): only such a key can
    // be written again by a lower family, which then replaces its value in place, as Map.set would.
    let unclaimed = false;
    for (let p = 0; p < plans.length; p++) {
      const out = p === 0 ? all : this.family;
      out.clear();
      runPlannedFamily(plans[p], attrs, p > 0 ? laterClaims : undefined, out);
      if (out.size === 0) continue;
      if (needsDecoding(out, plans[p].dataSlots)) return this.mapDecoding(plans, attrs, q);
      const last = p + 1 === plans.length;
      for (let i = 0; i < out.size; i++) {
        const k = out.keys[i];
        const v = out.values[i];
        if (out !== all) {
          if (unclaimed) all.set(k, v);
          else all.append(k, v);
        }
        if (v !== null || nullIsContent(k)) {
          if (!last) laterClaims.add(k);
        } else unclaimed = true;
      }
    }
    return all.size === 0 ? undefined : all;
  }

  /** map with S2 and S5 applied to each family's output before the next family claims. */
  mapDecoding(plans: readonly FamilyPlan[], attrs: Attributes, q: Quarantine): Attributes | undefined {
    const laterClaims = this.laterClaims;
    let all: Attributes | undefined;
    laterClaims.clear();
    for (let p = 0; p < plans.length; p++) {
      let mapped: Attributes = new AttributeList();
      runPlannedFamily(plans[p], attrs, p > 0 ? laterClaims : undefined, mapped);
      if (mapped.size === 0) continue;
      mapped = decodeTyped(mapped);
      // S5 only where a planned row can reach a data slot (decided with the plan).
      if (plans[p].dataSlots) mapped = decodeDataSlots(mapped, q);
      if (all === undefined) all = mapped;
      else for (const [k, v] of mapped) all.set(k, v);
      if (p + 1 < plans.length) for (const [k, v] of mapped) if (v !== null || nullIsContent(k)) laterClaims.add(k);
    }
    return all;
  }
}

/**
 * S4 on the general path: the families' output (decoded by S2 and S5) appended to `ag`, the explicit keys
 * after S2, S3 and S5, which claim first. Returns the same map.
 */
export function applySemconv(attrs: Attributes, ag: Attributes, mask: number, q: Quarantine, mapper: FamilyMapper): Attributes {
  if (mask === 0) return ag;
  const claimed = new ClaimList();
  for (const [k, v] of ag) claimExplicit(claimed, k, v);
  const plans = planFamilies(attrs.keyArray, claimed, mask);
  const mapped = mapper.mapDecoding(plans, attrs, q);
  if (mapped !== undefined) for (const [k, v] of mapped) ag.set(k, v);
  return ag;
}
