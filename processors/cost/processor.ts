// The `cost` processor: what an LLM call cost, from the tokens and the model the span reports, for the
// span types that make such calls (chat, completion, embedding by default). It runs after namespace, where
// every SDK's model name and token counts sit in the same `ag.*` keys. A span whose client sent any cost
// keeps it; a model found in neither the user's file nor the built-in table gets no cost and is counted.
import type { WorkingBatch } from '../../model/batch.ts';
import type { AttrValue, Attributes, Span } from '../../model/span.ts';
import type { SyncProcessor } from '../../pipeline/component.ts';
import type { Logger } from '../../pipeline/log.ts';
import { NO_PROCESSOR_METRICS, type ProcessorMetrics } from '../../pipeline/telemetry/metrics.ts';
import { DEFAULT_MAX_CACHED_MODELS, DEFAULT_SPAN_TYPES } from './config.ts';
import { PriceTable } from './price-table.ts';
import { loadPriceLibrary } from './library.ts';
import type { UserPrices } from './prices-file.ts';
import { COSTS_INCREMENTAL, COSTS_INCREMENTAL_TRIPLE, Slot, slotPosition } from '../../model/ag-metrics.ts';

export interface CostOptions {
  user?: UserPrices;
  span_types?: string[];
  max_cached_models?: number;
  logger?: Logger;
  /** Counts `priced` and `unknown_model` spans once per batch (tracehop_processor_spans_total). */
  metrics?: ProcessorMetrics;
}

/** The outcomes this processor counts. */
export const OUTCOMES = ['priced', 'unknown_model'] as const;

/** What the processor read from one span's attributes. */
interface Seen {
  type: string | undefined;
  requestModel: string | undefined;
  responseModel: string | undefined;
  providerName: string | undefined;
  provider: string | undefined;
  system: string | undefined;
  prompt: number | undefined;
  completion: number | undefined;
  total: number | undefined;
  clientCost: boolean;
}

function tokens(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? v : undefined;
  if (typeof v === 'bigint') return v >= 0n ? Number(v) : undefined;
  return undefined;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

export class CostProcessor implements SyncProcessor {
  readonly sync = true as const;
  /** Its costs are summed by namespace's propagate_metrics, which runs after it. */
  readonly addsMetrics = true;
  /** Spans that got a computed cost. */
  priced = 0;
  /** Spans of a priced type with a model and tokens, whose model neither table knows. */
  unknown = 0;
  /** Made by start(), once the price library is loaded. */
  private table: PriceTable | undefined;
  private readonly user: UserPrices | undefined;
  private readonly types: Set<string>;
  private readonly logger: Logger | undefined;
  private readonly metrics: ProcessorMetrics;
  /** Unknown model names already logged (one warning each), bounded like the price cache. */
  private readonly logged = new Set<string>();
  private readonly maxLogged: number;
  /** Scratch, reused for every span. */
  private readonly seen: Seen = CostProcessor.blank();

  constructor(options: CostOptions = {}) {
    this.maxLogged = options.max_cached_models ?? DEFAULT_MAX_CACHED_MODELS;
    this.user = options.user;
    this.types = new Set(options.span_types ?? DEFAULT_SPAN_TYPES);
    this.logger = options.logger;
    this.metrics = options.metrics ?? NO_PROCESSOR_METRICS;
  }

  private static blank(): Seen {
    return { type: undefined, requestModel: undefined, responseModel: undefined, providerName: undefined, provider: undefined, system: undefined, prompt: undefined, completion: undefined, total: undefined, clientCost: false };
  }

  /** Loads the price library (the graph starts processors before any receiver listens). */
  async start(): Promise<void> {
    this.table ??= new PriceTable(await loadPriceLibrary(), this.user, this.maxLogged);
  }

  process(batch: WorkingBatch): void {
    if (this.table === undefined) throw new Error('cost processor used before start()');
    const spans = batch.spans;
    const priced = this.priced;
    const unknown = this.unknown;
    for (let i = 0; i < spans.length; i++) this.price(spans[i]);
    this.metrics.spans('priced', this.priced - priced);
    this.metrics.spans('unknown_model', this.unknown - unknown);
  }

  /** Adds the span's incremental costs when it has none and they can be computed; true when it did. */
  private price(span: Span): boolean {
    const s = this.seen;
    if (!this.read(span.attributes, s)) return false;
    const type = s.type ?? span.spanType;
    if (type === undefined || !this.types.has(type) || s.clientCost) return false;
    // An embedding reports its input alone, sometimes as the total only.
    const prompt = s.prompt ?? (type === 'embedding' && s.completion === undefined ? s.total : undefined);
    if (prompt === undefined && s.completion === undefined) return false;
    if (s.responseModel === undefined && s.requestModel === undefined) return false;
    const used = { prompt: prompt ?? 0, completion: s.completion ?? 0 };
    const provider = s.providerName ?? s.provider ?? s.system;
    // The response model is the one that ran (often a dated version); the request's names what was asked.
    const costs = (s.responseModel === undefined ? undefined : this.table!.costs(provider, s.responseModel, used, span.startNs))
      ?? (s.requestModel === undefined || s.requestModel === s.responseModel ? undefined : this.table!.costs(provider, s.requestModel, used, span.startNs));
    if (costs === undefined) {
      this.unknown++;
      this.logUnknown(provider, (s.responseModel ?? s.requestModel)!);
      return false;
    }
    const list = span.attributes;
    list.insert(slotPosition(list, Slot.COSTS_INCREMENTAL), COSTS_INCREMENTAL_TRIPLE.keys, [costs.prompt, costs.completion, costs.prompt + costs.completion]);
    this.priced++;
    return true;
  }

  /**
   * One pass over the attributes for the few keys that matter, into `s`; false as soon as the span's
   * `ag.type.span` is not one to price (namespace writes that key first, so most spans stop there).
   */
  private read(attrs: Attributes, s: Seen): boolean {
    s.type = s.requestModel = s.responseModel = s.providerName = s.provider = s.system = undefined;
    s.prompt = s.completion = s.total = undefined;
    s.clientCost = false;
    const keys = attrs.keyArray;
    const values = attrs.valueArray;
    for (let i = 0; i < keys.length; i++) if (!this.take(keys[i], values[i], s)) return false;
    return true;
  }

  /** Notes one member; false when it shows the span is not to be priced. */
  private take(k: string, v: AttrValue, s: Seen): boolean {
    if (k.charCodeAt(0) !== 97 /* a */ || !k.startsWith('ag.')) return true;
    switch (k) {
      case 'ag.type.span': s.type = text(v); return s.type === undefined || this.types.has(s.type);
      case 'ag.meta.request.model': s.requestModel = text(v); return true;
      case 'ag.meta.response.model': s.responseModel = text(v); return true;
      case 'ag.meta.provider.name': s.providerName = text(v); return true;
      case 'ag.meta.provider': s.provider = text(v); return true;
      case 'ag.meta.system': s.system = text(v); return true;
      case 'ag.metrics.tokens.incremental.prompt': s.prompt = tokens(v); return true;
      case 'ag.metrics.tokens.incremental.completion': s.completion = tokens(v); return true;
      case 'ag.metrics.tokens.incremental.total': s.total = tokens(v); return true;
    }
    if (k.startsWith(COSTS_INCREMENTAL)) {
      s.clientCost = true;
      return false;
    }
    return true;
  }

  private logUnknown(provider: string | undefined, model: string): void {
    const key = `${provider ?? ''}\u0000${model}`;
    if (this.logger === undefined || this.logged.has(key)) return;
    if (this.logged.size >= this.maxLogged) return;
    this.logged.add(key);
    this.logger.warn('no price for this model: its spans get no cost (add it to prices_file)', { model, provider });
  }
}
