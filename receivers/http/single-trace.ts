// `POST /tracing/traces/`: the extra rules for a request that must hold exactly one trace (ingest-api.md
// §7). Checks 1-2 look at the body before any span is checked; 4-6 at the accepted spans.
import type { TracingBody } from '../../model/batch.ts';
import type { Span } from '../../model/span.ts';

/** §7 checks 1 and 2; `count` is the number of submitted spans (flat entries or tree nodes). */
export function checkTraceBody(body: TracingBody, count: number): string | undefined {
  if (body.form === 'tree') {
    let keys = 0;
    for (const _ in body.traces) if (++keys > 1) return 'Too many traces';
  }
  if (count === 0) return 'Missing spans';
  return undefined;
}

/** §7 checks 4 to 6 on the accepted, de-duplicated spans (at least one). */
export function checkTraceSpans(spans: Span[]): string | undefined {
  // A Set keeps first-appearance order, which the detail lists.
  const traceIds = new Set<string>();
  for (let i = 0; i < spans.length; i++) traceIds.add(spans[i].traceId);
  if (traceIds.size > 1) {
    return `Spans must share one trace_id; found ${traceIds.size}: ${[...traceIds].join(', ')}`;
  }
  let roots = 0;
  for (let i = 0; i < spans.length; i++) if (spans[i].parentId === undefined) roots++;
  if (roots === 0) return 'Missing root span';
  if (roots > 1) return 'Too many root spans';
  return undefined;
}
