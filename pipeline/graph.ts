// The running daemon built from a loaded config: one ingest stream per pipeline, one runner per
// (pipeline, exporter), one consumer per receiver that runs the synchronous processors once and appends
// to every stream the receiver feeds. A reload builds the next graph from the running one
// (`new Graph(spec, options, previous)`, then `takeOver`): it keeps the previous graph's streams, and its
// receivers and extensions whose settings did not change (docs/decisions/0660).
import { SYNC_PROCESSORS, syncChain, type Authenticator, type Batcher, type Exporter, type Extension, type IngestConsumer, type ProcessorContext, type Receiver, type SyncProcessor } from './component.ts';
import { DeadLetterFile, defaultDeadLetterPath } from './deadletter.ts';
import { RefusedError } from './errors.ts';
import type { Logger } from './log.ts';
import type { Registry } from './registry.ts';
import { DEFAULT_PACING, IntakePacer, type PacingOptions } from './pacing.ts';
import { ExportRunner, SerialExporter, type DeadLetterSink, type RetryPolicy } from './runner.ts';
import type { Span } from '../model/span.ts';
import type { IngestStream, StreamReader, StreamRecord } from './stream/stream.ts';
import { stampProject, type WorkingBatch } from '../model/batch.ts';
import { ConsumerSlot } from './consumer-slot.ts';
import { Taps } from './tap.ts';
import type { ServiceStatus } from './status.ts';
import { ServiceMetrics, type PipelineGauges, type StreamMetrics } from './telemetry/metrics.ts';

export interface ComponentEntry {
  /** `type` or `type/name`. */
  id: string;
  type: string;
  /** Validated, defaults filled in, durations in milliseconds. */
  config: Record<string, unknown>;
}

export interface PipelineEntry {
  id: string;
  receivers: string[];
  /** As listed, without `flatten` and `validate` (part of every receiver now: config/schema.ts RECEIVER_STEPS). */
  processors: string[];
  exporters: string[];
}

export interface GraphSpec {
  /** The extensions `service.extensions` enables, in that order (none: absent). */
  extensions?: Map<string, ComponentEntry>;
  receivers: Map<string, ComponentEntry>;
  processors: Map<string, ComponentEntry>;
  exporters: Map<string, ComponentEntry>;
  pipelines: PipelineEntry[];
}

export interface GraphOptions {
  registry: Registry;
  logger: Logger;
  /** `deadLetters` gives each exporter's dead-letter sink, for a stream that can tell a record that keeps
   *  killing the process (crash-loop protection of the disk stream). `metrics`: what a disk stream counts. */
  createStream(pipelineId: string, deadLetters: (exporterId: string) => DeadLetterSink, metrics: StreamMetrics): IngestStream;
  /** Process-wide admission check (memory limit); undefined = admit. */
  admission?: () => { message: string; retryAfterMs: number } | undefined;
  retryAfterMs: number;
  /** When new requests wait for exporters that are behind (tests shorten the stall). */
  pacing?: PacingOptions;
  /** Metrics shared by every graph of a daemon, so that a reload keeps its counters (default: the graph's own). */
  metrics?: ServiceMetrics;
  /** Taps shared likewise (default: the graph's own). */
  taps?: Taps;
}

interface PipelineRuntime {
  id: string;
  stream: IngestStream;
  sync: SyncProcessor[];
  batcher: Batcher;
  runners: ExportRunner[];
}

/** Without a batch processor every read is sent as it is (up to about the batch processor's default
 *  trigger: small enough that a batch alive across collections stays cheap, decision 0360). */
const PASS_THROUGH_SPANS = 1024;
const passThrough: Batcher = {
  sync: false,
  deliverySpans: PASS_THROUGH_SPANS,
  gather: (reader: StreamReader, signal: AbortSignal): Promise<StreamRecord[]> => reader.read(PASS_THROUGH_SPANS, signal),
  split: (spans: Span[]) => [spans],
};

export class Graph {
  readonly extensions = new Map<string, Extension>();
  readonly receivers = new Map<string, Receiver>();
  readonly exporters = new Map<string, Exporter>();
  readonly pipelines: PipelineRuntime[] = [];
  readonly runners: ExportRunner[] = [];
  readonly deadLetters = new Map<string, DeadLetterFile>();
  /** The daemon's metrics (served by cmd/ at service.telemetry.metrics.address). */
  readonly metrics: ServiceMetrics;
  /** Who watches the spans passing each pipeline (`tracehop tap`, served beside the metrics). */
  readonly taps: Taps;
  private readonly spec: GraphSpec;
  private readonly options: GraphOptions;
  /** The slot each receiver calls through, by receiver id (a kept receiver keeps its slot). */
  private readonly slots = new Map<string, ConsumerSlot>();
  /** This graph's consumer for each receiver, which a kept receiver's slot is pointed at by takeOver. */
  private readonly consumers = new Map<string, IngestConsumer>();
  /** What this graph took from the graph it replaced and must not start again. */
  private readonly kept = { receivers: new Set<string>(), extensions: new Set<string>(), streams: new Set<string>() };
  /** This graph's exporters until it runs (start, takeOver): then only the running graph's are looked up. */
  private readonly building: { exporters: Map<string, Exporter> | undefined } = { exporters: undefined };
  /** Shared by this graph and every graph built from it by reloads: which one runs now. Not a link from
   *  each graph to the next, which would keep every replaced graph alive. */
  private readonly lineage: { current: Graph };
  /** `consume` calls in progress, and who waits for there to be none (a reload). */
  private consuming = 0;
  /** Resolves when the last `consume` in progress returns (made when someone waits: quiesced()). */
  private idle: { promise: Promise<void>; resolve: () => void } | undefined;
  private closing = false;
  /** Every receiver started (until then, and from shutdown on, none counts as listening). */
  private receiving = false;

  constructor(spec: GraphSpec, options: GraphOptions, previous?: Graph) {
    this.spec = spec;
    this.options = options;
    this.lineage = previous?.lineage ?? { current: this };
    this.building.exporters = this.exporters;
    const lineage = this.lineage;
    this.metrics = options.metrics ?? new ServiceMetrics();
    this.taps = options.taps ?? new Taps(spec.pipelines.map((p) => p.id));
    const { registry, logger } = options;
    // Closures handed to components hold these, never the graph: a component a reload keeps (a receiver,
    // an extension, a stream) would otherwise keep the graph that built it alive.
    const metrics = this.metrics;
    const ownDeadLetters = this.deadLetters;
    const processors = new Map<string, SyncProcessor | Batcher>();
    const processor = (id: string) => {
      let p = processors.get(id);
      if (!p) {
        const entry = spec.processors.get(id) ?? { id, type: id, config: {} };
        const context: ProcessorContext = { id, logger: logger.child({ component: id }), metrics: (outcomes) => metrics.processor(id, outcomes) };
        p = registry.get('processor', entry.type)!.create(entry.config, context);
        processors.set(id, p!);
      }
      return p!;
    };

    const serial = new Map<string, SerialExporter>();
    for (const [id, entry] of spec.exporters) {
      if (!spec.pipelines.some((p) => p.exporters.includes(id))) continue;
      const exporter = registry.get('exporter', entry.type)!.create(entry.config, { id, logger: logger.child({ component: id }) }) as Exporter;
      this.exporters.set(id, exporter);
      serial.set(id, new SerialExporter(exporter));
      const deadLetter = entry.config.dead_letter as { path?: string } | undefined;
      this.deadLetters.set(id, new DeadLetterFile(deadLetter?.path ?? defaultDeadLetterPath(id), id));
    }
    // A stream outlives the graph that opened it: its dead letters go to the running graph's file for the
    // exporter, else to this graph's (a removed pipeline draining during a reload), else the default.
    const deadLetters = (exporterId: string): DeadLetterSink =>
      lineage.current.deadLetters.get(exporterId) ?? ownDeadLetters.get(exporterId) ?? new DeadLetterFile(defaultDeadLetterPath(exporterId), exporterId);

    for (const p of spec.pipelines) {
      const listed = p.processors.map((id) => ({ id, instance: processor(id) }));
      const byType = (type: string) => listed.find((l) => (spec.processors.get(l.id)?.type ?? l.id) === type)?.instance;
      // The receivers checked the spans at their edge; the synchronous processors listed run in the
      // order SYNC_PROCESSORS gives them (docs/decisions/0002).
      const sync: SyncProcessor[] = [];
      for (const type of SYNC_PROCESSORS) {
        const instance = byType(type);
        if (instance) sync.push(instance as SyncProcessor);
      }
      const async = listed.map((l) => l.instance).filter((i): i is Batcher => !i.sync);
      const keptStream = previous?.pipelines.find((old) => old.id === p.id)?.stream;
      if (keptStream) this.kept.streams.add(p.id);
      const runtime: PipelineRuntime = {
        id: p.id,
        stream: keptStream ?? options.createStream(p.id, deadLetters, this.metrics.stream(p.id)),
        sync: syncChain(sync),
        batcher: async[0] ?? passThrough,
        runners: [],
      };
      this.pipelines.push(runtime);
      for (const exporterId of p.exporters) {
        const config = spec.exporters.get(exporterId)!.config as { retry?: RetryPolicy; dead_letter?: { max_attempts?: number } };
        runtime.runners.push(new ExportRunner({
          exporterId,
          pipelineId: p.id,
          stream: runtime.stream,
          batcher: runtime.batcher,
          exporter: serial.get(exporterId)!,
          retry: config.retry ?? { initial_interval: 1000, max_interval: 30_000, multiplier: 1.5 },
          maxAttempts: config.dead_letter?.max_attempts ?? 10,
          deadLetters: this.deadLetters.get(exporterId)!,
          logger: logger.child({ component: exporterId, pipeline: p.id }),
          metrics: this.metrics.exporter(exporterId, p.id),
        }));
      }
      this.runners.push(...runtime.runners);
    }

    for (const [id, entry] of spec.extensions ?? []) {
      const old = previous?.extensions.get(id);
      if (old !== undefined && sameSettings(previous!.spec.extensions?.get(id), entry)) {
        this.extensions.set(id, old);
        this.kept.extensions.add(id);
        continue;
      }
      const context = { id, logger: logger.child({ component: id }), status: () => lineage.current.status() };
      this.extensions.set(id, registry.get('extension', entry.type)!.create(entry.config, context) as Extension);
    }
    // The extensions map, not the graph: a receiver a reload keeps holds this closure.
    const extensions = this.extensions;
    const authenticator = (id: string): Authenticator => {
      const extension = extensions.get(id);
      if (extension === undefined || !('authenticate' in extension)) throw new Error(`no authenticator extension "${id}" is enabled`);
      return extension as Authenticator;
    };

    const building = this.building;
    for (const [id, entry] of spec.receivers) {
      const fed = this.pipelines.filter((_, i) => spec.pipelines[i].receivers.includes(id));
      if (fed.length === 0) continue;
      const consumer = this.consumer(fed);
      this.consumers.set(id, consumer);
      const old = previous?.receivers.get(id);
      // Kept: same settings, and the authenticator it holds is the one this graph runs.
      if (old !== undefined && sameSettings(previous!.spec.receivers.get(id), entry) && this.keptAuthenticators(entry)) {
        this.receivers.set(id, old);
        this.slots.set(id, previous!.slots.get(id)!);
        this.kept.receivers.add(id);
        continue;
      }
      // One slot per receiver id for as long as the id exists: a receiver that replaces another (changed
      // settings) calls through the same slot, which the takeover points at this graph; until then it
      // leads to the running one. (What a handed-over receiver keeps of its predecessor, a gRPC server,
      // calls through it too.)
      const slot = previous?.slots.get(id) ?? new ConsumerSlot(consumer);
      this.slots.set(id, slot);
      const receiver = registry.get('receiver', entry.type)!.create(entry.config, {
        id, logger: logger.child({ component: id }), consumer: slot, authenticator,
        metrics: (transport: 'http' | 'grpc') => metrics.receiver(id, transport),
        // The running graph's exporter (a receiver a reload keeps outlives the exporters it was built
        // beside); this graph's own while it is being built and has not taken over yet.
        exporter: (exporterId: string) => lineage.current.exporters.get(exporterId) ?? building.exporters?.get(exporterId),
        // Asked per request, of the running graph: a reload may change the pipelines of a kept receiver.
        feeds: (exporterId: string) => lineage.current.spec.pipelines.some((p) => p.receivers.includes(id) && p.exporters.includes(exporterId)),
      }) as Receiver;
      this.receivers.set(id, receiver);
    }
  }

  /** Where the metrics' stream and backlog gauges and the taps look: this graph's pipelines. */
  private bindTelemetry(): void {
    this.taps.setPipelines(this.pipelines.map((p) => p.id));
    this.metrics.readPipelines(() => this.pipelines.map((p): PipelineGauges => ({
      id: p.id,
      bytes: () => p.stream.health().bytes,
      maxBytes: () => p.stream.health().maxBytes,
      segments: () => p.stream.segments?.(),
      exporters: p.runners.map((r) => ({ id: r.exporterId, backlogSpans: () => r.status().backlogSpans, backlogBytes: () => r.backlogBytes() })),
    })));
  }


  /** Extensions, then processors and exporters (their start-up errors come before any port is bound), streams, runners, receivers. */
  async start(): Promise<void> {
    this.building.exporters = undefined;
    this.bindTelemetry();
    for (const extension of this.extensions.values()) await extension.start();
    await this.startProcessors();
    for (const exporter of this.exporters.values()) await exporter.start();
    for (const p of this.pipelines) await p.stream.open();
    for (const runner of this.runners) runner.start();
    for (const receiver of this.receivers.values()) await receiver.start();
    this.receiving = !this.closing;
  }

  /**
   * Replaces `previous`, the graph running now, with this one, built from it; nothing acknowledged is
   * lost and receivers kept never stop listening. Rejects before `previous` was touched when an exporter
   * or a new stream cannot start (the previous graph then runs on); a receiver or an extension that
   * cannot start after that is logged and left out, as the new config's problem.
   * `graceMs`: how long a replaced exporter may take to finish the delivery it is making.
   */
  async takeOver(previous: Graph, graceMs: number): Promise<void> {
    const started: Array<{ shutdown(): Promise<void> }> = [];
    try {
      await this.startProcessors();
      for (const exporter of this.exporters.values()) {
        await exporter.start();
        started.push(exporter);
      }
      for (const p of this.pipelines) {
        if (this.kept.streams.has(p.id)) continue;
        await p.stream.open();
        started.push({ shutdown: () => p.stream.close() });
      }
    } catch (error) {
      await Promise.allSettled(started.map((s) => s.shutdown()));
      throw error;
    }
    const { logger } = this.options;
    this.lineage.current = this;
    this.building.exporters = undefined;
    this.bindTelemetry();
    // Listeners of changed settings: the old one stops (its requests finish), then the new one binds.
    for (const [id, extension] of previous.extensions) if (!this.kept.extensions.has(id)) await extension.shutdown().catch(() => {});
    for (const [id, extension] of this.extensions) {
      if (this.kept.extensions.has(id)) continue;
      await extension.start().catch((error) => logger.error(`reload: extension ${id} cannot start: ${(error as Error).message}`));
    }
    // Receivers the reload removed stop first: a new id may bind the port one of them held.
    for (const [id, old] of previous.receivers) if (!this.receivers.has(id)) await old.shutdown().catch(() => {});
    for (const [id, receiver] of this.receivers) {
      this.slots.get(id)!.target = this.consumers.get(id)!;
      if (this.kept.receivers.has(id)) continue;
      // A receiver whose settings changed serves on its predecessor's sockets when it can; else the
      // old one stops (its requests finish) and the new one binds.
      const old = previous.receivers.get(id);
      // Not when its authenticator was replaced: a handed-over gRPC server keeps the one it started with.
      const handedOver = old !== undefined && this.keptAuthenticators(this.spec.receivers.get(id)!) && receiver.takeOver?.(old) === true;
      await old?.shutdown().catch(() => {});
      if (!handedOver) await receiver.start().catch((error) => logger.error(`reload: receiver ${id} cannot start: ${(error as Error).message}`));
    }
    this.receiving = true;
    // From here on no request reaches the previous graph; the ones inside it finish their appends.
    await previous.quiesced();
    // The new runners start only once every old exporter is shut down (a removed pipeline may take up to
    // `graceMs` to drain): an exporter that a draining pipeline shares with a kept one would otherwise
    // have its old and its new instance writing at once (the same file, say).
    await previous.retire(this, graceMs);
    for (const p of this.pipelines) {
      if (this.kept.streams.has(p.id)) await p.stream.handOver(p.runners.map((r) => r.exporterId));
    }
    for (const runner of this.runners) runner.start();
  }

  private async startProcessors(): Promise<void> {
    for (const p of this.pipelines) for (const processor of p.sync) await processor.start?.();
  }

  /** Whether every authenticator extension the receiver names (`auth`, or per protocol) is one this graph kept running. */
  private keptAuthenticators(entry: ComponentEntry): boolean {
    const config = entry.config as { auth?: { authenticator?: string }; protocols?: Record<string, { auth?: { authenticator?: string } } | null> };
    const ids = [config.auth?.authenticator, ...Object.values(config.protocols ?? {}).map((p) => p?.auth?.authenticator)];
    return ids.every((authId) => authId === undefined || this.kept.extensions.has(authId));
  }

  /** Resolves once no `consume` call of this graph is in progress. */
  private quiesced(): Promise<void> {
    if (this.consuming === 0) return Promise.resolve();
    if (this.idle === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => { resolve = r; });
      this.idle = { promise, resolve };
    }
    return this.idle.promise;
  }

  /**
   * What a graph does once `next` took its receivers: stops its runners after the delivery each is
   * making, delivers the streams `next` did not keep and closes them, and closes its exporters.
   */
  private async retire(next: Graph, graceMs: number): Promise<void> {
    this.closing = true;
    this.receiving = false;
    const removed = this.pipelines.filter((p) => !next.kept.streams.has(p.id));
    for (const p of removed) p.stream.seal();
    for (const e of this.exporters.values()) void e.flush?.().catch(() => {});
    await Promise.all(this.pipelines.map(async (p) => {
      if (!removed.includes(p)) return Promise.all(p.runners.map((r) => r.stop(graceMs)));
      const drained = await within(Promise.all(p.runners.map((r) => r.drained())), graceMs);
      if (!drained) for (const r of p.runners) r.abort();
      const left = p.stream.stats().spans;
      if (left > 0) {
        this.options.logger.warn('reload: a removed pipeline\'s stream was not delivered in time and stays where it is', {
          pipeline: p.id, spans: left, kept_on_disk: p.stream.segments !== undefined,
        });
      }
      await Promise.allSettled(p.runners.map((r) => r.drained()));
      await p.stream.close();
    }));
    await Promise.allSettled([...this.exporters.values()].map((e) => e.shutdown()));
  }

  /** Listening addresses by receiver id (and by id of an extension that listens), for the start-up log line. */
  endpoints(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const [id, receiver] of this.receivers) out[id] = receiver.endpoints();
    for (const [id, extension] of this.extensions) if (extension.endpoints) out[id] = extension.endpoints();
    return out;
  }

  /** Each receiver, stream and exporter as it is now (per request of the health check, not per span). */
  status(): ServiceStatus {
    return {
      receivers: [...this.receivers].map(([id, receiver]) => {
        const endpoints = receiver.endpoints();
        return { id, listening: this.receiving && endpoints.length > 0, endpoints };
      }),
      pipelines: this.pipelines.map((p) => ({ id: p.id, stream: p.stream.health(), exporters: p.runners.map((r) => r.status()) })),
    };
  }

  /**
   * Stops accepting, delivers what was acknowledged, then closes exporters and streams. Returns the number
   * of acknowledged spans not delivered when `timeoutMs` ran out (0 = clean).
   */
  async shutdown(timeoutMs: number): Promise<number> {
    this.closing = true;
    this.receiving = false;
    await Promise.allSettled([...this.receivers.values()].map((r) => r.shutdown()));
    for (const p of this.pipelines) p.stream.seal();
    for (const e of this.exporters.values()) void e.flush?.().catch(() => {});
    const drained = await within(Promise.all(this.runners.map((r) => r.drained())), timeoutMs);
    let undelivered = 0;
    if (!drained) {
      for (const r of this.runners) r.abort();
      for (const p of this.pipelines) undelivered += p.stream.stats().spans;
    }
    await Promise.allSettled([...this.exporters.values()].map((e) => e.shutdown()));
    await Promise.allSettled(this.pipelines.map((p) => p.stream.close()));
    await Promise.allSettled([...this.extensions.values()].map((e) => e.shutdown()));
    return undelivered;
  }

  /** A stream's refusal of an append, marked when it is the shutdown's (a sealed stream) for the metrics. */
  private refused(error: RefusedError): RefusedError {
    error.refusedBy ??= this.closing ? 'shutdown' : 'stream_full';
    return error;
  }

  private consumer(fed: PipelineRuntime[]): IngestConsumer {
    const streams = fed.map((p) => p.stream);
    const consume = this.consumeWith(fed[0].sync, streams, fed);
    const pacer = new IntakePacer(fed.flatMap((p) => p.runners), this.options.pacing ?? DEFAULT_PACING);
    const { admission, retryAfterMs } = this.options;
    return {
      admit: () => {
        if (this.closing) return { message: 'tracehop is shutting down', retryAfterMs, refusedBy: 'shutdown' };
        // A full stream refuses before the request is decoded: under overload, refusing is then cheap
        // and leaves the CPU to the exporters that drain the stream.
        for (let i = 0; i < streams.length; i++) {
          const refused = streams[i].refusal();
          if (refused) return { ...refused, refusedBy: 'stream_full' };
        }
        const limited = admission?.();
        return limited && { ...limited, refusedBy: 'memory' };
      },
      waitForExporters: () => pacer.wait(),
      consume: async (batch: WorkingBatch, wireBytes?: number) => {
        this.consuming++;
        try {
          return await consume(batch, wireBytes);
        } finally {
          if (--this.consuming === 0 && this.idle !== undefined) {
            this.idle.resolve();
            this.idle = undefined;
          }
        }
      },
    };
  }

  private consumeWith(chain: SyncProcessor[], streams: IngestStream[], fed: PipelineRuntime[]): (batch: WorkingBatch, wireBytes?: number) => Promise<RefusedError | undefined> {
    const taps = this.taps;
    const { retryAfterMs } = this.options;
    return async (batch: WorkingBatch, wireBytes?: number) => {
      stampProject(batch);
      if (taps.watched) for (let i = 0; i < fed.length; i++) taps.offer(fed[i].id, 'received', batch.spans);
      for (let i = 0; i < chain.length; i++) chain[i].process(batch);
      const spans = batch.spans;
      if (taps.watched) for (let i = 0; i < fed.length; i++) taps.offer(fed[i].id, 'processed', spans);
      if (spans.length === 0) return undefined;
      if (streams.length === 1) {
        try {
          await streams[0].append(spans, wireBytes);
          return undefined;
        } catch (error) {
          if (error instanceof RefusedError) return this.refused(error);
          throw error;
        }
      }
      // Every stream must take the batch; what others appended stays (at least once, ARCHITECTURE.md).
      const results = await Promise.allSettled(streams.map((s) => s.append(spans, wireBytes)));
      const refused = results.find((r) => r.status === 'rejected');
      if (refused === undefined) return undefined;
      const reason = (refused as PromiseRejectedResult).reason;
      return this.refused(reason instanceof RefusedError ? reason : new RefusedError(String(reason), retryAfterMs));
    };
  }
}

/** Whether two entries of a component configure it the same (a reload keeps it running then). */
/** Whether a component keeps running across a reload: the same type with the same settings. */
export function sameSettings(a: ComponentEntry | undefined, b: ComponentEntry): boolean {
  return a !== undefined && a.type === b.type && JSON.stringify(a.config) === JSON.stringify(b.config);
}

/** Whether `promise` settled within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), ms); });
  const settled = await Promise.race([promise.then(() => true, () => true), expired]);
  clearTimeout(timer);
  return settled;
}
