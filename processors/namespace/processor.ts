// The `namespace` processor (ag-namespace.md): runs on every accepted span before the acknowledgement,
// in place. It never rejects and never throws on input; running it twice equals running it once.
import type { SyncProcessor } from '../../pipeline/component.ts';
import type { WorkingBatch } from '../../pipeline/batch.ts';
import type { Span } from '../../pipeline/span.ts';
import type { Cleaned } from './clean.ts';
import type { NamespaceConfig, SemconvMode } from './config.ts';
import { emitAttributes } from './emit.ts';
import { fastReferenceList } from './fast.ts';
import { computeSpanMetrics, propagateMetrics } from './metrics.ts';
import { normalise, type Normalised } from './normalise.ts';
import { referenceList } from './references.ts';

function validTraceType(v: unknown): string | undefined {
  return v === 'invocation' || v === 'annotation' ? v : undefined;
}

/** Traces of the batch where some span has a `links` field (an empty list counts). */
function linkedTraces(spans: Span[]): Set<string> {
  const set = new Set<string>();
  for (let i = 0; i < spans.length; i++) if (spans[i].links !== undefined) set.add(spans[i].traceId);
  return set;
}

export class NamespaceProcessor implements SyncProcessor {
  readonly sync = true as const;
  private readonly semconv: SemconvMode;
  private readonly propagate: boolean;

  constructor(config: Partial<NamespaceConfig> = {}) {
    this.semconv = config.semconv ?? 'otlp';
    this.propagate = config.propagate_metrics ?? false;
  }

  process(batch: WorkingBatch): void {
    const spans = batch.spans;
    const n = spans.length;
    if (n === 0) return;
    const semconv = this.semconv === 'all' || (this.semconv === 'otlp' && batch.origin === 'otlp');
    const work: Normalised[] = new Array(n);
    for (let i = 0; i < n; i++) work[i] = normalise(spans[i].attributes, semconv, !this.propagate);

    // S8: types, then metrics (the trace type may need the whole batch).
    let linked: Set<string> | undefined;
    for (let i = 0; i < n; i++) {
      const span = spans[i];
      const c = work[i].c;
      c.typeSpan ??= span.spanType ?? 'task';
      let tt = c.typeTrace ?? validTraceType(span.traceType);
      if (tt === undefined) {
        linked ??= linkedTraces(spans);
        tt = linked.has(span.traceId) ? 'annotation' : 'invocation';
      }
      c.typeTrace = tt;
      computeSpanMetrics(span, c);
    }
    if (this.propagate) {
      const cleaned: Cleaned[] = new Array(n);
      for (let i = 0; i < n; i++) cleaned[i] = work[i].c;
      propagateMetrics(spans, cleaned);
    }

    // S9 and the span fields derived from the attributes.
    for (let i = 0; i < n; i++) {
      const span = spans[i];
      const { c, q } = work[i];
      span.attributes = emitAttributes(span.attributes, c, q);
      span.spanType = c.typeSpan;
      span.traceType = c.typeTrace;
      if (span.parentId === undefined) {
        if (c.sessionId !== undefined) span.sessionId = c.sessionId;
        if (c.userId !== undefined) span.userId = c.userId;
      }
      if (c.references !== undefined) span.references = referenceList(c.references);
      else if (c.fast !== undefined) {
        const refs = fastReferenceList(c.fast);
        if (refs !== undefined) span.references = refs;
      }
    }
  }
}
