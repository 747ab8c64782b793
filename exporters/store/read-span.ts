// A stored row -> the span of the read responses (read-api.md §3): the span record's keys in its order,
// `attributes` in the nested shape (flat only for `format: opentelemetry`), empty `events` / `links` /
// `references` and the record's `project` left out, then `created_at` and `updated_at` (store clock).
import { AttributeList } from '../../model/attributes/list.ts';
import { parseJsonBytes } from '../../codec/json/parse.ts';
import { formatTimeNs } from '../../codec/record/index.ts';
import { nestedShape } from '../../model/attributes/unflatten.ts';
import type { AttrValue } from '../../model/span.ts';

export type AttributesForm = 'nested' | 'flat';

/** What a read selects of a row. */
export interface StoredSpan {
  trace_id: string;
  span_id: string;
  parent_id: string | null;
  span_name: string;
  start_ns: bigint;
  created_at: number | bigint;
  updated_at: number | bigint | null;
  record: string;
}

/** The columns of StoredSpan, for SELECT lists. */
export const STORED_SPAN_COLUMNS = 'trace_id, span_id, parent_id, span_name, start_ns, created_at, updated_at, record';

/**
 * The head of a trace (read-api.md §8.1) is the first of its spans in this order: its earliest root by
 * start time, then span id; with no root, its earliest span. The one statement of the rule, for every
 * query that picks heads (ORDER BY, or a window's ORDER BY).
 */
export const HEAD_FIRST = 'parent_id IS NOT NULL, start_ns, span_id';

/** Records are flat, so nesting is shallow; the limit only guards the parser. */
const RECORD_DEPTH = 64;
const LIST_FIELDS = new Set(['events', 'links', 'references']);

/** The record as JSON values; integers beyond 2^53 come back as bigint. */
export function parseRecord(record: string): Record<string, unknown> {
  const parsed = parseJsonBytes(Buffer.from(record, 'utf8'), RECORD_DEPTH);
  if (!parsed.ok) throw new Error(`a stored span record is not JSON: ${parsed.message}`);
  return parsed.value as Record<string, unknown>;
}

export function storeTime(ms: number | bigint): string {
  return formatTimeNs(BigInt(ms) * 1_000_000n);
}

/** The response object of one stored span; `record`: its record, when the caller parsed it already. */
export function readSpan(row: StoredSpan, form: AttributesForm = 'nested', record = parseRecord(row.record)): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (key === 'project') continue;
    if (LIST_FIELDS.has(key) && Array.isArray(value) && value.length === 0) continue;
    if (key === 'attributes' && form === 'nested') {
      out.attributes = nestedShape(new AttributeList(Object.entries(value as Record<string, AttrValue>)));
      continue;
    }
    out[key] = value;
  }
  out.attributes ??= {};
  out.created_at = storeTime(row.created_at);
  if (row.updated_at !== null) out.updated_at = storeTime(row.updated_at);
  return out;
}
