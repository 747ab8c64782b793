// `POST /simple/traces/query` (read-api.md §8.5): every trace's head span (§8.1) in window order, each
// tested against the given parts of its SimpleTrace view, until `limit` traces matched.
import { normaliseUuid } from '../../model/ids.ts';
import { attributeIs, linkHasIds } from './filter.ts';
import { sampled } from './query.ts';
import type { ReadWorker } from './read-worker.ts';
import { HEAD_FIRST, parseRecord, STORED_SPAN_COLUMNS, type StoredSpan } from './read-span.ts';
import { enumsOf, recordLinks, simpleView, type Channel, type Kind, type Origin } from './simple-view.ts';
import { windowBounds } from './scan.ts';
import { inWindow, type Windowing } from './windowing.ts';

type JsonObject = Record<string, unknown>;

/** A link of a query: the ids it names (output form); an absent one matches any. */
export interface PartialLink {
  trace_id?: string;
  span_id?: string;
}

/** A checked simple-trace query; absent parts match everything. */
export interface SimpleQuery {
  origin?: Origin;
  kind?: Kind;
  channel?: Channel;
  tags?: JsonObject;
  meta?: JsonObject;
  references?: JsonObject;
  /** `trace.links` as a map: every entry must name a head link with that key. */
  linksByKey?: Record<string, PartialLink>;
  /** `trace.links` as a list: some entry must equal some head link. */
  anyLink?: PartialLink[];
  /** Top-level `links`: some entry names this trace (and its head). */
  traceLinks?: PartialLink[];
  windowing: Windowing;
}

/**
 * The heads (HEAD_FIRST) that start inside the window's bounds, in window order, with the SQL arguments.
 * The window's spans are walked on the (project, start_ns) index, as the flat query walks them, and a span
 * is kept when it is its trace's head: the first of the trace's spans in head order, one seek on the
 * spans_head index (database.ts) whatever the window. So the head is chosen among all the trace's spans,
 * and a trace whose head starts outside the window is left out even when other spans of it are inside.
 * Rows come as the walk finds them, and the caller stops reading at `limit`: a query that matches early
 * reads a few spans, not the project (only spans at the same start time are sorted, by trace id).
 */
export function headsStatement(project: string, w: Windowing): { sql: string; params: [string, bigint, bigint] } {
  const d = w.order === 'ascending' ? 'ASC' : 'DESC';
  const headOf = `SELECT span_id FROM spans WHERE project = s.project AND trace_id = s.trace_id ORDER BY ${HEAD_FIRST} LIMIT 1`;
  return {
    sql:
      `SELECT ${STORED_SPAN_COLUMNS} FROM spans AS s INDEXED BY spans_start WHERE s.project = ? AND s.start_ns BETWEEN ? AND ? ` +
      `AND s.span_id = (${headOf}) ORDER BY s.start_ns ${d}, s.trace_id ${d}`,
    params: [project, ...windowBounds(w)],
  };
}

/** The heads of headsStatement(), from the read thread; throws QueryTimeoutError past `timeoutMs`. */
async function* heads(worker: ReadWorker, project: string, w: Windowing, timeoutMs: number): AsyncGenerator<StoredSpan> {
  const { sql, params } = headsStatement(project, w);
  for await (const chunk of worker.rows(sql, params, timeoutMs)) yield* chunk as unknown as StoredSpan[];
}

function referencesMatch(attributes: JsonObject, given: JsonObject): boolean {
  for (const key of Object.keys(given)) {
    const entry = given[key];
    if (typeof entry !== 'object' || entry === null) continue;
    for (const field of ['id', 'slug', 'version']) {
      const want = (entry as JsonObject)[field];
      if (want === undefined || want === null) continue;
      const stored = attributes[`ag.references.${key}.${field}`];
      const storedId = field === 'id' ? normaliseUuid(stored) : undefined;
      const equal = field === 'id' ? storedId !== undefined && storedId === normaliseUuid(want) : stored === want;
      if (!equal) return false;
    }
  }
  return true;
}

function matches(q: SimpleQuery, head: StoredSpan, record: JsonObject): boolean {
  const attributes = (record.attributes ?? {}) as JsonObject;
  const enums = enumsOf(attributes);
  if (q.origin !== undefined && enums.origin !== q.origin) return false;
  if (q.kind !== undefined && enums.kind !== q.kind) return false;
  if (q.channel !== undefined && enums.channel !== q.channel) return false;
  if (q.tags !== undefined && !attributeIs(attributes, 'ag.tags', q.tags)) return false;
  if (q.meta !== undefined && !attributeIs(attributes, 'ag.meta', q.meta)) return false;
  if (q.references !== undefined && !referencesMatch(attributes, q.references)) return false;
  const links = recordLinks(record);
  if (q.linksByKey !== undefined) {
    for (const [name, want] of Object.entries(q.linksByKey)) {
      if (!links.some((l) => l.attributes?.key === name && linkHasIds(l, want))) return false;
    }
  }
  if (q.anyLink !== undefined && !q.anyLink.some((want) => links.some((l) => linkHasIds(l, want)))) return false;
  if (q.traceLinks !== undefined) {
    const own = { trace_id: head.trace_id, span_id: head.span_id };
    // A trace link names its trace: an entry without a trace id matches none.
    if (!q.traceLinks.some((want) => want.trace_id !== undefined && linkHasIds(own, want))) return false;
  }
  return true;
}

/** The views of the matching traces, in window order, at most `limit`. */
export async function runSimpleQuery(worker: ReadWorker, project: string, q: SimpleQuery, timeoutMs = Infinity): Promise<JsonObject[]> {
  const w = q.windowing;
  const out: JsonObject[] = [];
  for await (const head of heads(worker, project, w, timeoutMs)) {
    if (!inWindow(w, head.start_ns, head.trace_id) || !sampled(head.trace_id, w.rate)) continue;
    const record = parseRecord(head.record);
    if (!matches(q, head, record)) continue;
    out.push(simpleView(head, record));
    if (out.length >= w.limit) break;
  }
  return out;
}
