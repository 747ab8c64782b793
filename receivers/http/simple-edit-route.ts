// `PATCH /simple/traces/{trace_id}` and `PATCH /tracing/traces/{trace_id}` (read-api.md §8.3): the head
// span read from the store, edited (simple-edit.ts), and appended to the ingest stream like any written
// span, so the store (and every other exporter) gets the edit on delivery. The answer is the view a GET
// shows once the store has it, with `updated_at` the time the PATCH was accepted (the store sets its own when
// it writes the edit). The edit starts from the stored head: two PATCHes sent before the first is delivered
// both start from the same head, and the last appended wins whole (§8.3; docs/http-api.md says so).
import type { IncomingMessage } from 'node:http';
import { stringifyJson } from '../../codec/json/parse.ts';
import { encodeSpanJson } from '../../codec/record/index.ts';
import { parseRecord } from '../../exporters/store/read-span.ts';
import { simpleView } from '../../exporters/store/simple-view.ts';
import type { CheckedSpans } from '../../codec/tracing/spans.ts';
import type { WorkingBatch } from '../../model/batch.ts';
import { INVALID_TRACE_ID, pathTraceId, type ReadRoutes } from './read-routes.ts';
import { allRejectedReply, detailReply, isReply, validationReply, type Reply } from './replies.ts';
import { normalisePath } from './routes.ts';
import { editedSpan } from './simple-edit.ts';
import { checkSimpleEdit } from './simple-trace.ts';

/** What the edit borrows from the write side: its span checks and its append (a refusal is the reply). */
export interface EditWriter {
  check(span: Record<string, unknown>): CheckedSpans;
  append(batch: WorkingBatch, wireBytes: number): Promise<Reply | undefined>;
}

/** `project`: of the accepted key (undefined: none); the order of checks is §2.1's. */
export async function answerSimpleEdit(
  routes: ReadRoutes, id: string, incoming: IncomingMessage, project: string | undefined, writer: EditWriter,
): Promise<Reply> {
  const receivedMs = Date.now();
  const body = await routes.jsonBody(incoming);
  if (isReply(body)) return body;
  const traceId = pathTraceId(id);
  if (traceId === undefined) return INVALID_TRACE_ID;
  const edit = checkSimpleEdit(body);
  if (Array.isArray(edit)) return validationReply(edit);
  if (!routes.storeFed()) {
    return detailReply(501, `PATCH ${normalisePath(incoming.url ?? '/')} is not available: the trace store is not fed by this receiver`);
  }
  const store = routes.store();
  if (store === undefined) return routes.notOpen();
  const head = store.headSpan(project ?? '', traceId);
  if (head === undefined) return { status: 200, body: '{"count":0}' };
  const checked = writer.check(editedSpan(parseRecord(head.record), edit));
  if (checked.spans.length === 0) return allRejectedReply(checked.rejections);
  const batch: WorkingBatch = { origin: 'tracing', spans: checked.spans, project };
  const refused = await writer.append(batch, head.record.length);
  if (refused !== undefined) return refused;
  // The span as the processors left it is the record the store will hold.
  const edited = batch.spans.find((s) => s.spanId === head.span_id);
  if (edited === undefined) return { status: 200, body: '{"count":0}' };
  const record = encodeSpanJson(edited);
  // An edit that changes nothing leaves the stored `updated_at` as it is (the store sets it only when the
  // record differs, read-api.md §9.2), so the answer keeps it too.
  const trace = simpleView(head, parseRecord(record), record === head.record ? undefined : receivedMs);
  return { status: 200, body: stringifyJson({ count: 1, trace }) };
}
