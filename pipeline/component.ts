// The contracts every component folder implements: a config schema with defaults, a factory, and the
// component itself. A new component is a new folder plus one line in the registry (pipeline/registry.ts
// is filled by cmd/components.ts, so pipeline/ imports no receiver, processor or exporter).
import type { Refusal, RefusedError } from './errors.ts';
import type { Logger } from './log.ts';
import type { Span } from '../model/span.ts';
import type { WorkingBatch } from '../model/batch.ts';
import type { StreamReader, StreamRecord } from './stream/stream.ts';
import type { ServiceStatus } from './status.ts';
import type { ProcessorMetrics, ReceiverMetricsFor } from './telemetry/metrics.ts';

/** A JSON schema (ajv, draft 2020-12 subset) describing one component's config, with `default`s. */
export type JsonSchema = Record<string, unknown>;

export type ComponentKind = 'receiver' | 'processor' | 'exporter' | 'extension';

export interface ComponentContext {
  /** `type` or `type/name`, as in the config. */
  id: string;
  logger: Logger;
}

export interface Factory<Config, Component, Context extends ComponentContext = ComponentContext> {
  type: string;
  kind: ComponentKind;
  /** Applied by the config loader: unknown keys are errors, defaults filled in. */
  schema: JsonSchema;
  create(config: Config, context: Context): Component;
  /** Rules across keys that a JSON schema cannot say; each problem names its key below the component. */
  check?(config: Config): Array<{ key: string; message: string }>;
}

// ---- receivers ---------------------------------------------------------------------------------

/** What a receiver calls for each request: the synchronous processors, then the append. */
export interface IngestConsumer {
  /** A refusal to answer before decoding (shutting down, a full stream, the memory limit); undefined = go ahead. */
  admit(): Refusal | undefined;
  /**
   * Undefined while the exporters keep up; else resolves once they caught up or stalled. A receiver
   * awaits it after `admit` and before reading the body, so that decoding new requests does not take
   * the CPU the exporters need to drain what was already accepted (docs/decisions/0370).
   */
  waitForExporters(): Promise<void> | undefined;
  /**
   * The one call per request: runs the synchronous processors (namespace) on the batch's spans, in
   * place, then appends them to every stream this receiver feeds. Resolves undefined once every append
   * is done (durable, when the stream is), or with the refusal (a full stream: nothing may be
   * acknowledged, the client must retry). Never throws on input; an exception is a bug.
   * `wireBytes`: the body bytes these spans came in (IngestStream.append), when the receiver knows them.
   */
  consume(batch: WorkingBatch, wireBytes?: number): Promise<RefusedError | undefined>;
}

export interface ReceiverContext extends ComponentContext {
  consumer: IngestConsumer;
  /** The authenticator extension with this id (the config loader checked that it is enabled);
   *  absent where no extension runs (a receiver built by hand, in a test). */
  authenticator?(id: string): Authenticator;
  /** Where the receiver counts accepted and refused spans and its requests, per transport; absent where
   *  no graph runs (a receiver built by hand, in a test): then nothing is counted. */
  metrics?: ReceiverMetricsFor;
  /** The exporter with this id when a pipeline runs it (the http receiver reads from a `store` exporter);
   *  absent where no graph runs. */
  exporter?(id: string): Exporter | undefined;
  /** Whether a pipeline this receiver feeds delivers to the exporter with this id (a simple-trace edit
   *  the http receiver appends reaches its store only then); absent where no graph runs. */
  feeds?(exporterId: string): boolean;
}

// ---- extensions ----------------------------------------------------------------------------------

export interface ExtensionContext extends ComponentContext {
  /** The state of every receiver, stream and exporter now (read when asked: the health check). */
  status(): ServiceStatus;
}

/** A component outside the pipelines (`extensions:`, enabled by `service.extensions`). */
export interface Extension {
  /** Reads what it needs (files), binds its listener; rejects with StartupError. Before any receiver starts. */
  start(): Promise<void>;
  /** Addresses it listens on, for the start-up log line (an extension that serves HTTP). */
  endpoints?(): string[];
  /** After every receiver stopped. */
  shutdown(): Promise<void>;
}

/** Who a request comes from, once its credential was accepted. */
export interface Identity {
  /** The project the credential belongs to, when one was configured for it. */
  project: string | undefined;
}

/** An extension that tells whether a request's credential is accepted (`auth: {authenticator: <id>}`). */
export interface Authenticator extends Extension {
  /** The identity for an `Authorization` value (HTTP header or gRPC metadata), or undefined: refuse. */
  authenticate(authorization: string | undefined): Identity | undefined;
}

export interface Receiver {
  /** Binds its listeners; rejects with StartupError (e.g. port in use). */
  start(): Promise<void>;
  /**
   * Instead of start(), when a reload replaces `previous` (same id, other settings): serves on its
   * listening sockets, so clients see no closed port; false (nothing changed) when it cannot, and then
   * the graph stops `previous` and starts this one. Optional.
   */
  takeOver?(previous: Receiver): boolean;
  /** Addresses it listens on, for the start-up log line (`http://127.0.0.1:4319`). */
  endpoints(): string[];
  /** Stops accepting; in-flight requests finish. */
  shutdown(): Promise<void>;
}

// ---- processors --------------------------------------------------------------------------------

export interface ProcessorContext extends ComponentContext {
  /** Where the processor counts its spans by outcome (`outcomes`: the series it starts at 0, from its
   *  factory); absent where no graph runs (a processor built by hand, in a test). */
  metrics?(outcomes: readonly string[]): ProcessorMetrics;
}

/** namespace: runs before the acknowledgement, on each request's accepted spans. */
export interface SyncProcessor {
  readonly sync: true;
  /** Loads what it needs (a table); awaited before any receiver listens. Optional. */
  start?(): Promise<void>;
  process(batch: WorkingBatch): void;
  /** It adds metrics to the spans (namespace, cost). */
  readonly addsMetrics?: boolean;
  /** A step of this processor that must see every processor's metrics (namespace's cumulative sums):
   *  it runs once per batch, after the last processor that adds metrics (syncChain). */
  readonly afterMetrics?: SyncProcessor;
}

/**
 * batch (and later asynchronous processors): runs between the stream and each exporter, deciding how
 * many records make one delivery.
 */
export interface Batcher {
  readonly sync: false;
  /** Spans that make one delivery (the size trigger): the intake pacer lets a few of these wait. */
  readonly deliverySpans: number;
  /**
   * Reads the next delivery from the reader: waits for a first record, then gathers more until the size
   * trigger or the timeout. Resolves [] when the reader is drained (sealed stream) or `signal` aborts.
   */
  gather(reader: StreamReader, signal: AbortSignal): Promise<StreamRecord[]>;
  /** Cuts one delivery into export calls no larger than the configured cap. */
  split(spans: Span[]): Span[][];
}

// ---- exporters ---------------------------------------------------------------------------------

export interface Exporter {
  /** Opens files, connects, checks the topic; rejects with StartupError on what the operator must fix. */
  start(): Promise<void>;
  /**
   * Delivers one batch. Resolving means delivered (the stream cursor moves past it).
   * Throw RetryableError to be retried with backoff (forever: the stream holds the data),
   * PermanentError to send the spans to the dead-letter file. Any other error counts as an attempt
   * and the batch is dead-lettered after `dead_letter.max_attempts`.
   */
  export(spans: Span[]): Promise<void>;
  /**
   * Shutdown has begun: write what is buffered now and write later batches at once rather than waiting
   * for a flush interval, so the drain is not held up by a timer. Optional.
   */
  flush?(): Promise<void>;
  /** Flushes what it buffered and closes. */
  shutdown(): Promise<void>;
}

/** Retry and dead-letter settings shared by every exporter (ARCHITECTURE.md, exporter defaults). */
export interface DeliveryConfig {
  retry: { initial_interval: number; max_interval: number; multiplier: number };
  dead_letter: { path: string; max_attempts: number };
}

/** The synchronous processor types, in the order they run whatever order a pipeline lists them in
 *  (docs/decisions/0002): namespace first, so the others see every SDK's spans in one shape; cost next,
 *  from the model and tokens as the client sent them; redact before limit, so that a secret is never cut
 *  in half by the size cap and its first half kept. */
export const SYNC_PROCESSORS = ['namespace', 'cost', 'redact', 'limit'] as const;

/**
 * The steps a batch goes through, from a pipeline's synchronous processors in SYNC_PROCESSORS order:
 * each processor, with the `afterMetrics` steps placed right after the last processor that adds metrics,
 * so that they run once over every metric and before any processor that rewrites values (redact, limit).
 */
export function syncChain(processors: readonly SyncProcessor[]): SyncProcessor[] {
  const after = processors.flatMap((p) => (p.afterMetrics === undefined ? [] : [p.afterMetrics]));
  let last = -1;
  processors.forEach((p, i) => { if (p.addsMetrics === true) last = i; });
  return [...processors.slice(0, last + 1), ...after, ...processors.slice(last + 1)];
}
