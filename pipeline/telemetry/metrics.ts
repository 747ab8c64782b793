// The daemon's own metrics (`service.telemetry.metrics`), in the Prometheus text format, made with
// prom-client (docs/operating.md#metrics lists them). One ServiceMetrics per graph, with its own
// prom-client Registry: nothing is registered at module level, so two graphs in one process (tests, a
// reload) never share a counter.
//
// Cost: components count once per request, per delivery or per group commit, never per span; a
// prom-client increment or observation costs a few hundred nanoseconds. Sizes and states (stream
// bytes, backlogs, the memory limiter) are not counted at all: gauges read them when scraped.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from './prom-client.ts';
import { readResidentMemory } from './resident.ts';

/** Why a receiver refused a request or spans: the operator's question is "whose fault, what to do". */
export type RefusalReason =
  /** No or unknown credential (401, UNAUTHENTICATED). */
  | 'auth'
  /** Over a configured limit: body size, spans per request, nesting depth (413, RESOURCE_EXHAUSTED). */
  | 'limit'
  /** Over `service.memory_limit_mib` (503). */
  | 'memory'
  /** The ingest stream is at `storage.max_bytes` or cannot write (503). */
  | 'stream_full'
  /** The body or a span broke the contract (400, 415, 422, INVALID_ARGUMENT). */
  | 'invalid'
  /** The daemon is shutting down (503). */
  | 'shutdown';

/** What one receiver (on one transport) counts. */
export interface ReceiverMetrics {
  /** Spans appended to the ingest stream(s): the request was acknowledged for them. */
  accepted(spans: number): void;
  /** Spans the receiver decoded and did not accept (rejected by the checks, or refused by the stream). */
  refusedSpans(reason: RefusalReason, spans: number): void;
  /** One HTTP request answered: its route (a fixed label, never the raw path), status, refusal reason. */
  answered(route: string, status: number, reason: RefusalReason | undefined, startedMs: number): void;
  /** One gRPC call answered: its method, status code name, refusal reason. */
  answeredRpc(method: string, code: string, reason: RefusalReason | undefined, startedMs: number): void;
}

/** A ReceiverMetrics per transport of one receiver (the otlp receiver has two). */
export type ReceiverMetricsFor = (transport: 'http' | 'grpc') => ReceiverMetrics;

/** For a receiver built without a graph (unit tests): counts nothing. */
export const NO_RECEIVER_METRICS: ReceiverMetrics = {
  accepted() {},
  refusedSpans() {},
  answered() {},
  answeredRpc() {},
};

/** What one export runner (one pipeline's stream to one exporter) counts. */
export interface ExporterMetrics {
  /** One export call: spans delivered, or failed (the attempt counts; the spans stay in the stream). */
  sent(spans: number, startedMs: number): void;
  failed(spans: number, startedMs: number): void;
  deadLettered(spans: number): void;
  /** The spans of one delivery handed to the exporter (after the batch processor's split). */
  batch(spans: number): void;
}

export const NO_EXPORTER_METRICS: ExporterMetrics = { sent() {}, failed() {}, deadLettered() {}, batch() {} };

/** What a disk stream counts (a memory stream has no syncs or groups). */
export interface StreamMetrics {
  /** One fdatasync/fsync and how long it took. */
  synced(startedMs: number): void;
  /** Records written by one group commit (one writev and, with fsync: always, one sync). */
  groupCommitted(records: number): void;
}

/** What a processor counts: its spans by an outcome of its own (cost: `priced`, `unknown_model`). */
export interface ProcessorMetrics {
  /** Adds `spans` (a processor counts once per batch, never per span). */
  spans(outcome: string, spans: number): void;
}

export const NO_PROCESSOR_METRICS: ProcessorMetrics = { spans() {} };

/** One pipeline's stream and exporters as read at scrape time. */
export interface PipelineGauges {
  id: string;
  bytes(): number;
  /** Its bound, `storage.max_bytes`. */
  maxBytes(): number;
  /** Disk stream segment files; undefined for a memory stream. */
  segments(): number | undefined;
  exporters: Array<{ id: string; backlogSpans(): number; backlogBytes(): number | undefined }>;
}

/** Seconds buckets for request and export durations: 0.5 ms to 10 s. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds buckets for one sync: 50 µs to 1 s (a local SSD syncs in well under a millisecond). */
const FSYNC_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
/** Counts: spans per delivery, records per group commit. */
const SIZE_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];

const PREFIX = 'tracehop_';

/** A lookup that makes each child once. Keys come from the code (routes, statuses, reasons), never from clients. */
function childrenOf<T>(make: (key: string) => T): (key: string) => T {
  const children = new Map<string, T>();
  return (key) => {
    let child = children.get(key);
    if (child === undefined) {
      child = make(key);
      children.set(key, child);
    }
    return child;
  };
}

function seconds(startedMs: number): number {
  return (performance.now() - startedMs) / 1000;
}

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #acceptedSpans: Counter<'receiver' | 'transport'>;
  readonly #refusedSpans: Counter<'receiver' | 'transport' | 'reason'>;
  readonly #refusedRequests: Counter<'receiver' | 'transport' | 'reason'>;
  readonly #httpDuration: Histogram<'receiver' | 'route' | 'status'>;
  readonly #rpcDuration: Histogram<'receiver' | 'method' | 'code'>;
  readonly #sentSpans: Counter<'exporter'>;
  readonly #failedSpans: Counter<'exporter'>;
  readonly #deadLetteredSpans: Counter<'exporter'>;
  readonly #sendDuration: Histogram<'exporter' | 'outcome'>;
  readonly #batchSize: Histogram<'pipeline' | 'exporter'>;
  readonly #fsyncDuration: Histogram<'pipeline'>;
  readonly #groupCommit: Histogram<'pipeline'>;
  readonly #reloads: Counter<'result'>;
  readonly #processorSpans: Counter<'processor' | 'outcome'>;
  #pipelines: () => PipelineGauges[] = () => [];
  #processMetrics = false;

  constructor() {
    const registers = [this.registry];
    this.#acceptedSpans = new Counter({
      name: `${PREFIX}receiver_accepted_spans_total`, help: 'Spans a receiver appended to the ingest stream (acknowledged to the client).',
      labelNames: ['receiver', 'transport'], registers,
    });
    this.#refusedSpans = new Counter({
      name: `${PREFIX}receiver_refused_spans_total`,
      help: 'Spans a receiver decoded and did not accept, by reason (spans of requests refused before decoding are not known: see refused_requests).',
      labelNames: ['receiver', 'transport', 'reason'], registers,
    });
    this.#refusedRequests = new Counter({
      name: `${PREFIX}receiver_refused_requests_total`, help: 'Requests a receiver answered with a refusal, by reason.',
      labelNames: ['receiver', 'transport', 'reason'], registers,
    });
    this.#httpDuration = new Histogram({
      name: `${PREFIX}http_server_request_duration_seconds`, help: 'Time from a request\'s arrival to its answer, by route and status.',
      labelNames: ['receiver', 'route', 'status'], buckets: DURATION_BUCKETS, registers,
    });
    this.#rpcDuration = new Histogram({
      name: `${PREFIX}rpc_server_request_duration_seconds`, help: 'Time from a gRPC call\'s arrival to its answer, by method and status code.',
      labelNames: ['receiver', 'method', 'code'], buckets: DURATION_BUCKETS, registers,
    });
    this.#sentSpans = new Counter({
      name: `${PREFIX}exporter_sent_spans_total`, help: 'Spans an exporter delivered.', labelNames: ['exporter'], registers,
    });
    this.#failedSpans = new Counter({
      name: `${PREFIX}exporter_send_failed_spans_total`,
      help: 'Spans of export calls that failed (each failed attempt counts; the spans stay in the stream and are retried).',
      labelNames: ['exporter'], registers,
    });
    this.#deadLetteredSpans = new Counter({
      name: `${PREFIX}exporter_deadlettered_spans_total`, help: 'Spans written to an exporter\'s dead-letter file.', labelNames: ['exporter'], registers,
    });
    this.#sendDuration = new Histogram({
      name: `${PREFIX}exporter_send_duration_seconds`, help: 'Duration of one export call, by outcome (sent, failed).',
      labelNames: ['exporter', 'outcome'], buckets: DURATION_BUCKETS, registers,
    });
    this.#batchSize = new Histogram({
      name: `${PREFIX}batch_size_spans`, help: 'Spans per export call (the batch processor\'s deliveries after its split).',
      labelNames: ['pipeline', 'exporter'], buckets: SIZE_BUCKETS, registers,
    });
    this.#fsyncDuration = new Histogram({
      name: `${PREFIX}stream_fsync_duration_seconds`, help: 'Duration of one sync of a disk stream\'s files.',
      labelNames: ['pipeline'], buckets: FSYNC_BUCKETS, registers,
    });
    this.#groupCommit = new Histogram({
      name: `${PREFIX}stream_group_commit_records`, help: 'Records (accepted requests) written by one group commit of a disk stream.',
      labelNames: ['pipeline'], buckets: SIZE_BUCKETS, registers,
    });
    this.#processorSpans = new Counter({
      name: `${PREFIX}processor_spans_total`, help: 'Spans a processor handled, by an outcome of its own (cost: priced, unknown_model).',
      labelNames: ['processor', 'outcome'], registers,
    });
    this.#reloads = new Counter({
      name: `${PREFIX}config_reloads_total`, help: 'Config reloads (SIGHUP, POST /-/reload) by result: applied, invalid (refused), failed (a component could not start).',
      labelNames: ['result'], registers,
    });
    for (const result of ['applied', 'invalid', 'failed']) this.#reloads.labels(result).inc(0);
    this.#scrapeGauges(registers);
  }

  /** One reload, by its result. */
  reloaded(result: 'applied' | 'invalid' | 'failed'): void {
    this.#reloads.labels(result).inc();
  }

  /** Counters of one processor; `outcomes` are its series at 0 from the start. Outcomes come from the code. */
  processor(id: string, outcomes: readonly string[]): ProcessorMetrics {
    const child = childrenOf((outcome: string) => this.#processorSpans.labels(id, outcome));
    for (const outcome of outcomes) child(outcome).inc(0);
    return {
      spans: (outcome, spans) => {
        if (spans > 0) child(outcome).inc(spans);
      },
    };
  }

  /** Counters of one receiver on one transport. Label children are made once: a request only adds. */
  receiver(id: string, transport: 'http' | 'grpc'): ReceiverMetrics {
    const accepted = this.#acceptedSpans.labels(id, transport);
    accepted.inc(0);
    // Children by their varying labels, made on first use: a request looks one up by a short key rather
    // than having prom-client build and check a label object (it still hashes the labels per count).
    const refusedSpans = childrenOf((reason: string) => this.#refusedSpans.labels(id, transport, reason));
    const refusedRequests = childrenOf((reason: string) => this.#refusedRequests.labels(id, transport, reason));
    const http = childrenOf((key: string) => this.#httpDuration.labels(id, ...(key.split(' ', 2) as [string, string])));
    const rpc = childrenOf((key: string) => this.#rpcDuration.labels(id, ...(key.split(' ', 2) as [string, string])));
    return {
      accepted: (spans) => {
        if (spans > 0) accepted.inc(spans);
      },
      refusedSpans: (reason, spans) => {
        if (spans > 0) refusedSpans(reason).inc(spans);
      },
      answered: (route, status, reason, startedMs) => {
        if (reason !== undefined) refusedRequests(reason).inc();
        http(route + ' ' + status).observe(seconds(startedMs));
      },
      answeredRpc: (method, code, reason, startedMs) => {
        if (reason !== undefined) refusedRequests(reason).inc();
        rpc(method + ' ' + code).observe(seconds(startedMs));
      },
    };
  }

  exporter(exporterId: string, pipelineId: string): ExporterMetrics {
    const sent = this.#sentSpans.labels(exporterId);
    const failed = this.#failedSpans.labels(exporterId);
    const deadLettered = this.#deadLetteredSpans.labels(exporterId);
    const sentDuration = this.#sendDuration.labels(exporterId, 'sent');
    const failedDuration = this.#sendDuration.labels(exporterId, 'failed');
    const batch = this.#batchSize.labels(pipelineId, exporterId);
    // Series at 0 from the start: an alert on "failed > 0" or a rate needs the series before the first event.
    sent.inc(0);
    failed.inc(0);
    deadLettered.inc(0);
    return {
      sent: (spans, startedMs) => {
        sent.inc(spans);
        sentDuration.observe(seconds(startedMs));
      },
      failed: (spans, startedMs) => {
        failed.inc(spans);
        failedDuration.observe(seconds(startedMs));
      },
      deadLettered: (spans) => deadLettered.inc(spans),
      batch: (spans) => batch.observe(spans),
    };
  }

  stream(pipelineId: string): StreamMetrics {
    const fsync = this.#fsyncDuration.labels(pipelineId);
    const group = this.#groupCommit.labels(pipelineId);
    return {
      synced: (startedMs) => fsync.observe(seconds(startedMs)),
      groupCommitted: (records) => group.observe(records),
    };
  }

  /** Where the stream and backlog gauges read from at scrape time (the graph's pipelines). */
  readPipelines(pipelines: () => PipelineGauges[]): void {
    this.#pipelines = pipelines;
  }

  /** The memory limiter's gauges: live bytes (its last sample) and whether it refuses now. */
  memoryLimiter(lastSample: () => number, limitBytes: number): void {
    new Gauge({
      name: `${PREFIX}memory_limiter_live_bytes`, help: 'Live JavaScript memory (V8 heap used + external) at the memory limiter\'s last sample.',
      registers: [this.registry], collect() { this.set(lastSample()); },
    });
    new Gauge({
      name: `${PREFIX}memory_limiter_limit_bytes`, help: 'service.memory_limit_mib in bytes.',
      registers: [this.registry], collect() { this.set(limitBytes); },
    });
    new Gauge({
      name: `${PREFIX}memory_limiter_refusing`, help: '1 while the memory limiter refuses requests (live bytes over the limit), else 0.',
      registers: [this.registry], collect() { this.set(lastSample() > limitBytes ? 1 : 0); },
    });
  }

  /** `tracehop_build_info{version,node} 1`. */
  buildInfo(version: string): void {
    new Gauge({
      name: `${PREFIX}build_info`, help: 'Always 1; the labels say which tracehop and which Node run.',
      labelNames: ['version', 'node'], registers: [this.registry],
    }).labels(version, process.versions.node).set(1);
  }

  /**
   * prom-client's process and Node metrics (CPU, RSS, heap, event-loop delay, GC), prefixed
   * `tracehop_`, and on Linux the resident set by kind (resident.ts). Only for a daemon that serves its metrics: they install a GC observer and an
   * event-loop delay monitor that live as long as the process.
   */
  collectProcessMetrics(): void {
    if (this.#processMetrics) return;
    this.#processMetrics = true;
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
    // Where /proc/self/status has the split (Linux): resident memory by kind, read at scrape time.
    if (readResidentMemory() === undefined) return;
    new Gauge({
      name: `${PREFIX}process_resident_memory_by_kind_bytes`,
      help: 'Resident memory by kind: anon (heap, Buffers, allocator: private), file (the Node executable and libraries: shared, reclaimable), shmem.',
      labelNames: ['kind'], registers: [this.registry],
      collect() {
        const resident = readResidentMemory();
        if (resident === undefined) return;
        for (const kind of ['anon', 'file', 'shmem'] as const) this.labels(kind).set(resident[kind]);
      },
    });
  }

  /** The text format's Content-Type. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every metric in the Prometheus text format, gauges read now. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  #scrapeGauges(registers: Registry[]): void {
    const pipelines = () => this.#pipelines();
    new Gauge({
      name: `${PREFIX}stream_bytes`, help: 'Bytes a pipeline\'s ingest stream holds (what counts against storage.max_bytes).',
      labelNames: ['pipeline'], registers,
      collect() {
        this.reset();
        for (const p of pipelines()) this.labels(p.id).set(p.bytes());
      },
    });
    new Gauge({
      name: `${PREFIX}stream_max_bytes`, help: 'storage.max_bytes: the stream refuses appends (503) once stream_bytes reaches it.',
      labelNames: ['pipeline'], registers,
      collect() {
        this.reset();
        for (const p of pipelines()) this.labels(p.id).set(p.maxBytes());
      },
    });
    new Gauge({
      name: `${PREFIX}stream_segments`, help: 'Segment files of a pipeline\'s disk stream.',
      labelNames: ['pipeline'], registers,
      collect() {
        this.reset();
        for (const p of pipelines()) {
          const segments = p.segments();
          if (segments !== undefined) this.labels(p.id).set(segments);
        }
      },
    });
    new Gauge({
      name: `${PREFIX}exporter_backlog_spans`, help: 'Spans in a pipeline\'s stream that an exporter has not delivered yet.',
      labelNames: ['exporter', 'pipeline'], registers,
      collect() {
        this.reset();
        for (const p of pipelines()) for (const e of p.exporters) this.labels(e.id, p.id).set(e.backlogSpans());
      },
    });
    new Gauge({
      name: `${PREFIX}exporter_backlog_bytes`, help: 'Bytes of the records in a pipeline\'s stream that an exporter has not delivered yet.',
      labelNames: ['exporter', 'pipeline'], registers,
      collect() {
        this.reset();
        for (const p of pipelines()) {
          for (const e of p.exporters) {
            const bytes = e.backlogBytes();
            if (bytes !== undefined) this.labels(e.id, p.id).set(bytes);
          }
        }
      },
    });
  }
}
