// The `namespace` processor (ag-namespace.md): runs on every accepted span before the acknowledgement,
// in place. It never rejects and never throws on input; running it twice equals running it once.
import type { SyncProcessor } from '../../pipeline/component.ts';
import type { WorkingBatch } from '../../model/batch.ts';
import { Uint64ToNumber } from '../../model/byte-order.ts';
import type { Span } from '../../model/span.ts';
import type { Cleaned } from './layout.ts';
import type { NamespaceConfig, SemconvMode } from './config.ts';
import { emitAttributes } from './emit.ts';
import { computeSpanMetrics, sumCumulativeMetrics } from './metrics.ts';
import { Normaliser } from './normalise.ts';
import type { Quarantine } from './quarantine.ts';
import { referenceList } from './references.ts';
import { slottedReferenceList } from './slots.ts';

function validTraceType(v: unknown): string | undefined {
  return v === 'invocation' || v === 'annotation' ? v : undefined;
}

/** Traces of the batch where some span has a `links` field (an empty list counts); built on first need. */
class LinkedTraces {
  private set: Set<string> | undefined;
  private readonly spans: Span[];

  constructor(spans: Span[]) {
    this.spans = spans;
  }

  /** The last answer: the spans of one trace are usually adjacent, and comparing with the previous id
   *  is cheaper than hashing every span's own id string (~80 ns of a flat span's ~1 us, profiled). */
  private lastId = '';
  private lastHas = false;

  has(traceId: string): boolean {
    if (this.set === undefined) {
      const set = new Set<string>();
      const spans = this.spans;
      for (let i = 0; i < spans.length; i++) if (spans[i].links !== undefined) set.add(spans[i].traceId);
      this.set = set;
    } else if (traceId === this.lastId) return this.lastHas;
    this.lastId = traceId;
    this.lastHas = this.set.has(traceId);
    return this.lastHas;
  }
}

/** S8 for one span: span type, trace type, computed metrics (§4.1-§4.3, without propagation). */
function settle(span: Span, c: Cleaned, linked: LinkedTraces, toNumber: Uint64ToNumber): void {
  c.typeSpan ??= span.spanType ?? 'task';
  let tt = c.typeTrace ?? validTraceType(span.traceType);
  if (tt === undefined) tt = linked.has(span.traceId) ? 'annotation' : 'invocation';
  c.typeTrace = tt;
  computeSpanMetrics(span, c, toNumber);
}

/** S9 and the span fields derived from the attributes. */
function writeBack(span: Span, c: Cleaned, q: Quarantine): void {
  span.attributes = emitAttributes(span.attributes, c, q);
  span.spanType = c.typeSpan;
  span.traceType = c.typeTrace;
  if (span.parentId === undefined) {
    if (c.sessionId !== undefined) span.sessionId = c.sessionId;
    if (c.userId !== undefined) span.userId = c.userId;
  }
  if (c.references !== undefined) span.references = referenceList(c.references);
  else if (c.slotted !== undefined) {
    const refs = slottedReferenceList(c.slotted);
    if (refs !== undefined) span.references = refs;
  }
}

/** propagate_metrics' pass: a step of its own, so that it sums the metrics of every processor that adds them. */
const SUM_CUMULATIVE_METRICS: SyncProcessor = { sync: true, process: (batch) => sumCumulativeMetrics(batch.spans) };

export class NamespaceProcessor implements SyncProcessor {
  readonly sync = true as const;
  readonly addsMetrics = true;
  /** With `propagate_metrics`: the cumulative sums, which the pipeline runs once after every processor
   *  that adds metrics (cost adds costs after this processor ran; pipeline/component.ts syncChain). */
  readonly afterMetrics: SyncProcessor | undefined;
  private readonly semconv: SemconvMode;
  private readonly normaliser = new Normaliser();
  /** Scratch of the duration metric (metrics.ts lengthNs). */
  private readonly toNumber = new Uint64ToNumber();

  constructor(config: Partial<NamespaceConfig> = {}) {
    this.semconv = config.semconv ?? 'otlp';
    this.afterMetrics = (config.propagate_metrics ?? false) ? SUM_CUMULATIVE_METRICS : undefined;
  }

  process(batch: WorkingBatch): void {
    const spans = batch.spans;
    const n = spans.length;
    if (n === 0) return;
    const semconv = this.semconv === 'all' || (this.semconv === 'otlp' && batch.origin === 'otlp');
    const linked = new LinkedTraces(spans);
    // Each span is finished before the next starts: nothing but the links of the batch (which this
    // processor does not touch) crosses spans, and a planned span's result is scratch reused by the next.
    for (let i = 0; i < n; i++) {
      const span = spans[i];
      const w = this.normaliser.normalise(span.attributes, semconv);
      settle(span, w.c, linked, this.toNumber);
      writeBack(span, w.c, w.q);
    }
  }
}
