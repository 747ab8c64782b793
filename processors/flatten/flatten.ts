// The `flatten` processor: a tracing-API body -> one draft per submitted span (ingest-api.md §3), in
// request order. It checks nothing about the spans themselves; `validate` does.
import type { SyncProcessor } from '../../pipeline/component.ts';
import type { WorkingBatch } from '../../model/batch.ts';
import { flatDrafts, treeDrafts } from '../../codec/tracing/tree.ts';

export class FlattenProcessor implements SyncProcessor {
  readonly sync = true as const;

  process(batch: WorkingBatch): void {
    const body = batch.tracing;
    if (body === undefined) return; // decoded straight to spans (OTLP, simple traces)
    batch.drafts = body.form === 'flat' ? flatDrafts(body.spans) : treeDrafts(body.traces);
  }
}
