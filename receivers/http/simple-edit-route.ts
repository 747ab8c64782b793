// `PATCH /simple/traces/{trace_id}` and `PATCH /tracing/traces/{trace_id}` (read-api.md §8.3), after the read
// routes checked the body, the path id and the store (read-routes.ts): the head span read from the store,
// edited (simple-edit.ts), and appended to the ingest stream like any written span, so the store (and every
// other exporter) gets the edit on delivery. The answer is the view a GET shows once the store has it, with
// `updated_at` the time the PATCH was accepted (the store sets its own when it writes the edit). The PATCHes
// of one trace run in arrival order, each after the store holds the edit of the one before (edit-order.ts),
// so each starts from every earlier edit of this receiver; when that edit expires first (`read.query_timeout`
// after its append, edit-order.ts) the PATCH answers 503 and changes nothing.
import { stringifyJson } from '../../codec/json/parse.ts';
import { encodeSpanJson } from '../../codec/record/index.ts';
import { parseRecord } from '../../exporters/store/read-span.ts';
import type { TraceReads } from '../../exporters/store/reads.ts';
import { simpleView } from '../../exporters/store/simple-view.ts';
import type { CheckedSpans } from '../../codec/tracing/spans.ts';
import type { WorkingBatch } from '../../model/batch.ts';
import type { EditOrder } from './edit-order.ts';
import { allRejectedReply, type Reply } from './replies.ts';
import { editedSpan } from './simple-edit.ts';
import type { SimpleTraceParts } from './simple-trace.ts';

/** What the edit borrows from the write side: its span checks and its append (a refusal is the reply). */
export interface EditWriter {
  check(span: Record<string, unknown>): CheckedSpans;
  append(batch: WorkingBatch, wireBytes: number): Promise<Reply | undefined>;
}

/** A checked PATCH. */
export interface SimpleEdit {
  traceId: string;
  /** Of the accepted key (undefined: none). */
  project: string | undefined;
  parts: SimpleTraceParts;
  /** The request body's size (decoded): the stream's estimate of what the edit holds, as for a write. */
  bodyBytes: number;
  receivedMs: number;
}

/** The store, the order of the PATCHes, and the 503s a PATCH may answer (ReadRoutes' own). */
export interface EditWait {
  order: EditOrder;
  /** The store's reads as they are now: looked up after the wait, which a reload may outlast. */
  reads: () => TraceReads | undefined;
  /** The 503 with `Retry-After` of the read routes, with this `detail`. */
  unavailable: (detail: string) => Reply;
  /** The 503 of a store not open (as the other read routes answer). */
  notOpen: () => Reply;
  /** The bound as configured, for the detail: `read.query_timeout` in ms (0: none). */
  queryTimeoutMs: number;
}

export function answerSimpleEdit(writer: EditWriter, wait: EditWait, edit: SimpleEdit): Promise<Reply> {
  const scope = edit.project ?? '';
  const { order } = wait;
  return order.inTurn(scope, edit.traceId, async () => {
    if (!(await order.stored(scope, edit.traceId, edit.receivedMs))) {
      const bound =
        wait.queryTimeoutMs > 0
          ? `within read.query_timeout (${order.boundMs} ms)`
          : `within ${order.boundMs} ms (the wait for an edit in flight when read.query_timeout is 0)`;
      return wait.unavailable(`An earlier PATCH of trace ${edit.traceId} has not reached the trace store ${bound}; nothing was changed, retry later`);
    }
    // After the wait: a reload may have replaced the store (the one read before it is closed).
    const reads = wait.reads();
    if (reads === undefined) return wait.notOpen();
    return editHead(reads, writer, order, edit);
  });
}
/** The edit itself, once no earlier edit of the trace is on its way to the store. */
async function editHead(reads: TraceReads, writer: EditWriter, order: EditOrder, edit: SimpleEdit): Promise<Reply> {
  const { project } = edit;
  const head = reads.headSpan(project ?? '', edit.traceId);
  if (head === undefined) return { status: 200, body: '{"count":0}' };
  const checked = writer.check(editedSpan(parseRecord(head.record), edit.parts));
  if (checked.spans.length === 0) return allRejectedReply(checked.rejections);
  const batch: WorkingBatch = { origin: 'tracing', spans: checked.spans, project };
  const refused = await writer.append(batch, edit.bodyBytes);
  if (refused !== undefined) return refused;
  // The span as the processors left it is the record the store will hold.
  const edited = batch.spans.find((s) => s.spanId === head.span_id);
  if (edited === undefined) return { status: 200, body: '{"count":0}' };
  const record = encodeSpanJson(edited);
  if (record !== head.record) order.appended(project ?? '', edit.traceId, head.span_id, record);
  // An edit that changes nothing leaves the stored `updated_at` as it is (the store sets it only when the
  // record differs, read-api.md §9.2), so the answer keeps it too.
  const trace = simpleView(head, parseRecord(record), record === head.record ? undefined : edit.receivedMs);
  return { status: 200, body: stringifyJson({ count: 1, trace }) };
}
