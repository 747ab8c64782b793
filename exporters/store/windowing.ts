// The `windowing` object of the structured and simple-trace queries (read-api.md §7, §8.5): the flat
// query's window keys plus `order` and the paging cursor `next`, and the test of one item against it.
import { isJsonObject } from '../../model/json-object.ts';
import { normaliseSpanId, normaliseTraceId } from '../../model/ids.ts';
import { absent, unknownKeys, windowInto, type Loc, type Problem, type QueryLimits } from './query-body.ts';

const WINDOWING_KEYS = ['oldest', 'newest', 'limit', 'order', 'next', 'interval', 'rate'];

export interface Windowing {
  oldestNs?: bigint;
  newestNs?: bigint;
  limit: number;
  rate: number;
  order: 'descending' | 'ascending';
  /** The cursor (§7): an id in output form, a span id or a trace id as `cursor` said. */
  next?: string;
}

/** `value` at `loc` (absent: the defaults); `cursor` says what kind of id `next` is. */
export function parseWindowing(value: unknown, loc: Loc, limits: QueryLimits, cursor: 'span' | 'trace', out: Problem[]): Windowing {
  const windowing: Windowing = { limit: limits.defaultLimit, rate: 1, order: 'descending' };
  if (absent(value)) return windowing;
  if (!isJsonObject(value)) {
    out.push({ loc, msg: 'windowing must be an object', type: 'dict_type' });
    return windowing;
  }
  unknownKeys(value, WINDOWING_KEYS, loc, out);
  windowInto(value, loc, limits, windowing, out);
  if (!absent(value.order)) {
    if (value.order === 'descending' || value.order === 'ascending') windowing.order = value.order;
    else out.push({ loc: [...loc, 'order'], msg: "order must be 'descending' or 'ascending'", type: 'enum' });
  }
  if (!absent(value.next)) {
    const id = cursor === 'span' ? normaliseSpanId(value.next) : normaliseTraceId(value.next);
    if (id === undefined) out.push({ loc: [...loc, 'next'], msg: `next must be a ${cursor} id`, type: 'invalid_id' });
    else windowing.next = id;
  }
  return windowing;
}

/**
 * Whether an item starting at `startNs` with tie-order id `id` is inside the window. Descending: `oldest`
 * inclusive, `newest` exclusive; ascending the other way round. With `next`, items at exactly the
 * cursor's bound (`newest` descending, `oldest` ascending) are kept when `id` comes after `next` in the
 * tie order (ids descending, resp. ascending).
 */
export function inWindow(w: Windowing, startNs: bigint, id: string): boolean {
  const descending = w.order === 'descending';
  if (w.oldestNs !== undefined) {
    if (startNs < w.oldestNs) return false;
    if (startNs === w.oldestNs && !descending && !(w.next !== undefined && id > w.next)) return false;
  }
  if (w.newestNs !== undefined) {
    if (startNs > w.newestNs) return false;
    if (startNs === w.newestNs && descending && !(w.next !== undefined && id < w.next)) return false;
  }
  return true;
}
