// Test peers for the OTLP tests: an IngestConsumer built from the real synchronous processors that
// records what was appended, and a ReadableSpan -> expected canonical fields mapping.
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import { stampProject, type WorkingBatch } from '../../model/batch.ts';
import type { IngestConsumer, SyncProcessor } from '../../pipeline/component.ts';
import { RefusedError } from '../../pipeline/errors.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { AttrValue, Span } from '../../model/span.ts';
import { factory as namespace } from '../../processors/namespace/factory.ts';

export class RecordingConsumer implements IngestConsumer {
  readonly processors: SyncProcessor[];
  /** Every appended span, in order. */
  readonly appended: Span[] = [];
  /** The body bytes each consume call was told its spans came in. */
  readonly wireBytes: Array<number | undefined> = [];
  /** consume() calls. */
  consumed = 0;
  /** When set, admit() refuses with it. */
  admitRefusal: { message: string; retryAfterMs: number } | undefined;
  /** When set, consume() answers it (a RefusedError) or throws it (any other error); nothing recorded. */
  appendError: Error | undefined;
  /** Resolves on each append, for tests that wait for an SDK's batch. */
  #waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(options: { namespace?: boolean } = {}) {
    const ctx = { id: 'test', logger: silentLogger };
    this.processors = [];
    if (options.namespace !== false) this.processors.push(namespace.create({ semconv: 'otlp', propagate_metrics: false }, ctx));
  }

  admit() {
    return this.admitRefusal;
  }

  waitForExporters(): undefined {
    return undefined;
  }

  async consume(batch: WorkingBatch, wireBytes?: number): Promise<RefusedError | undefined> {
    this.consumed++;
    stampProject(batch);
    for (const p of this.processors) p.process(batch);
    if (this.appendError instanceof RefusedError) return this.appendError;
    if (this.appendError) throw this.appendError;
    this.appended.push(...batch.spans);
    this.wireBytes.push(wireBytes);
    this.#waiters = this.#waiters.filter((w) => {
      if (this.appended.length >= w.count) { w.resolve(); return false; }
      return true;
    });
    return undefined;
  }

  /** Resolves once at least `count` spans were appended. */
  waitFor(count: number): Promise<void> {
    if (this.appended.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  refuse(status: 429 | 503, retryAfterMs = 2500): void {
    this.appendError = new RefusedError('stream is full', retryAfterMs, status);
  }
}

export function hrToNs(t: [number, number]): bigint {
  return BigInt(t[0]) * 1_000_000_000n + BigInt(t[1]);
}

/** The canonical value of an OTel attribute value (SDK attributes are scalars or homogeneous arrays). */
function canonicalValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((e) => (e === undefined ? null : canonicalValue(e)));
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return v ?? null;
}

export function canonicalAttributes(attrs: Record<string, unknown>): AttributeList {
  const out = new AttributeList();
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) out.set(k, canonicalValue(v) as AttrValue);
  return out;
}

/** Attributes without the `ag.*` keys the namespace processor adds. */
export function withoutAg(attrs: AttributeList): AttributeList {
  return new AttributeList([...attrs].filter(([k]) => k !== 'ag' && !k.startsWith('ag.')));
}

/** What a ReadableSpan must look like once it went through OTLP and the receiver. */
export function expectedFields(rs: ReadableSpan) {
  const ctx = rs.spanContext();
  const scope = rs.instrumentationScope;
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    parentId: rs.parentSpanContext?.spanId,
    name: rs.name,
    kind: rs.kind + 1, // the API's INTERNAL=0 is OTLP's 1
    startNs: hrToNs(rs.startTime),
    endNs: hrToNs(rs.endTime),
    status: rs.status.message ? { code: rs.status.code, message: rs.status.message } : { code: rs.status.code },
    attributes: canonicalAttributes(rs.attributes),
    events: rs.events.length === 0 ? undefined : rs.events.map((e) => ({
      name: e.name, timeNs: hrToNs(e.time), attributes: canonicalAttributes(e.attributes ?? {}),
    })),
    links: rs.links.length === 0 ? undefined : rs.links.map((l) => ({
      traceId: l.context.traceId, spanId: l.context.spanId, attributes: canonicalAttributes(l.attributes ?? {}),
    })),
    resource: canonicalAttributes(rs.resource.attributes),
    scope: { name: scope.name, ...(scope.version ? { version: scope.version } : {}) },
  };
}

/** The same fields of a received span, `ag.*` attributes left out. */
export function receivedFields(span: Span) {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    parentId: span.parentId,
    name: span.name,
    kind: span.kind,
    startNs: span.startNs,
    endNs: span.endNs,
    status: span.status,
    attributes: withoutAg(span.attributes),
    events: span.events?.map((e) => ({ name: e.name, timeNs: e.timeNs, attributes: e.attributes })),
    links: span.links?.map((l) => ({ traceId: l.traceId, spanId: l.spanId, attributes: l.attributes })),
    resource: span.resource,
    scope: span.scope && { name: span.scope.name, ...(span.scope.version ? { version: span.scope.version } : {}) },
  };
}

/**
 * Finished spans from the real SDK: a root with attributes of every type, a child with an event and a
 * link, and `extra` plain children. Ids and times are the SDK's. `processors` (e.g. a
 * BatchSpanProcessor with an OTLP exporter) see the same spans; they are flushed before this resolves.
 */
export async function sdkSpans(extra = 0, processors: SpanProcessor[] = []): Promise<ReadableSpan[]> {
  const { TracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace');
  const { resourceFromAttributes } = await import('@opentelemetry/resources');
  const api = await import('@opentelemetry/api');
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'shop', 'service.instance.cores': 4 }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory }), ...processors],
  });
  const tracer = provider.getTracer('openai-instrumentation', '1.2.0');
  const root = tracer.startSpan('workflow', {
    kind: api.SpanKind.SERVER,
    attributes: {
      'gen_ai.request.model': 'gpt-4o', 'ünï.cödé': '日本語 🙂', int: 42, neg: -7, dbl: 0.25, yes: true,
      strs: ['a', 'b'], nums: [1, 2.5], empty: '',
    },
  });
  const ctx = api.trace.setSpan(api.context.active(), root);
  const child = tracer.startSpan('chat', { kind: api.SpanKind.CLIENT, links: [{ context: root.spanContext(), attributes: { why: 'follows' } }] }, ctx);
  child.addEvent('exception', { 'exception.message': 'boom' });
  child.setStatus({ code: api.SpanStatusCode.ERROR, message: 'failed' });
  child.end();
  for (let i = 0; i < extra; i++) tracer.startSpan(`step ${i}`, { attributes: { i } }, ctx).end();
  root.end();
  await provider.forceFlush();
  const spans = memory.getFinishedSpans();
  await provider.shutdown();
  return spans;
}
