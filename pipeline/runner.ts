// Delivers one pipeline's stream to one exporter: read, batch, export with retries, commit the cursor.
// Each (pipeline, exporter) pair has its own runner and its own cursor, so a slow exporter holds back only
// itself until the stream's bound is reached.
import type { Batcher, Exporter } from './component.ts';
import { PermanentError, RetryableError } from './errors.ts';
import type { Logger } from './log.ts';
import type { Span } from '../model/span.ts';
import type { IngestStream, StreamReader, StreamRecord } from './stream/stream.ts';
import type { ExporterStatus } from './status.ts';
import { NO_EXPORTER_METRICS, type ExporterMetrics } from './telemetry/metrics.ts';

export interface RetryPolicy {
  initial_interval: number;
  max_interval: number;
  multiplier: number;
}

/** Where spans that can never be delivered go (one JSON line each, with the reason). */
export interface DeadLetterSink {
  write(spans: Span[], reason: string): Promise<void>;
}

export interface RunnerOptions {
  exporterId: string;
  pipelineId: string;
  /** Read through the reader of `exporterId`, taken when the runner starts. */
  stream: IngestStream;
  batcher: Batcher;
  exporter: SerialExporter;
  retry: RetryPolicy;
  /** Attempts after which a batch whose export throws (not a retryable error) is dead-lettered. */
  maxAttempts: number;
  deadLetters: DeadLetterSink;
  logger: Logger;
  /** Counted per export call and per dead-lettered batch (absent: nothing is counted). */
  metrics?: ExporterMetrics;
}

/**
 * One exporter instance may serve several pipelines; its export calls are made one at a time so that
 * exporters need not be re-entrant.
 */
export class SerialExporter {
  readonly exporter: Exporter;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(exporter: Exporter) {
    this.exporter = exporter;
  }

  export(spans: Span[]): Promise<void> {
    const run = this.tail.then(() => this.exporter.export(spans));
    this.tail = run.catch(() => {});
    return run;
  }
}

/**
 * Why a runner's signals abort. A reason, not the default AbortError: that error's stack keeps the
 * frames that aborted, and with them the graph a reload replaced, alive as long as the runner.
 */
const STOPPED = 'export runner stopped';

export class ExportRunner {
  private readonly options: RunnerOptions;
  private readonly metrics: ExporterMetrics;
  private readonly stopping = new AbortController();
  /** Aborted to gather no further delivery (a reload hands the reader over); `stopping` aborts it too. */
  private readonly ending = new AbortController();
  private loop: Promise<void> | undefined;
  delivered = 0;
  deadLettered = 0;
  /**
   * When the first failed export attempt since the last success was (Date.now()), undefined while
   * exporting works: the stream then buffers for this exporter. Read by the health check.
   */
  private failingSince: number | undefined;
  private finished = false;
  /** Set when intake waited `stallMs` for a commit that did not come; cleared by the next commit. */
  private stalled = false;
  private progress: ProgressWait | undefined;
  /** Taken from the stream when the runner starts: a graph built by a reload starts its runners only
   *  once the streams it keeps were handed over (IngestStream.handOver). */
  #reader: StreamReader | undefined;

  constructor(options: RunnerOptions) {
    this.options = options;
    this.metrics = options.metrics ?? NO_EXPORTER_METRICS;
  }


  get exporterId(): string {
    return this.options.exporterId;
  }

  /** Bytes not yet committed, when the stream can tell (the metrics' backlog gauge). */
  backlogBytes(): number | undefined {
    return this.#reader?.lagBytes?.();
  }

  start(): void {
    this.#reader ??= this.options.stream.reader(this.options.exporterId);
    this.loop ??= this.run().catch((err) => {
      this.options.logger.error('export runner stopped on an unexpected error', { err });
    });
  }

  /** Resolves once the runner has delivered everything a sealed stream holds. */
  drained(): Promise<void> {
    return this.loop ?? Promise.resolve();
  }

  /** Stops at once; what was not committed stays in the stream. */
  abort(): void {
    this.ending.abort(STOPPED);
    this.stopping.abort(STOPPED);
  }

  /**
   * Gathers no further delivery and lets the one under way finish (a reload replaces this runner):
   * resolves once the runner stopped, aborting the delivery when `graceMs` ran out (an exporter that
   * keeps failing). What was not committed stays in the stream for the next reader.
   */
  async stop(graceMs: number): Promise<void> {
    this.ending.abort(STOPPED);
    const timer = setTimeout(() => this.stopping.abort(STOPPED), graceMs).unref();
    await this.drained();
    clearTimeout(timer);
  }

  /**
   * Whether new requests should wait for this exporter: it is behind by more than `deliveries` of its
   * deliveries while exporting without errors. A failing or stalled exporter is not waited for: the
   * stream buffers for it, which is what the stream is for.
   */
  isBehind(deliveries: number): boolean {
    return this.failingSince === undefined && !this.stalled && !this.finished
      && this.#reader !== undefined && this.#reader.lag() > deliveries * this.options.batcher.deliverySpans;
  }

  /** What the health check reports: failing since when (undefined: not failing) and the spans not yet delivered. */
  status(): ExporterStatus {
    return { exporter: this.options.exporterId, pipeline: this.options.pipelineId, failingSince: this.failingSince, backlogSpans: this.#reader?.lag() ?? 0 };
  }

  /** Resolves at the next commit, failed attempt or stop, or after `stallMs` (then the runner counts as stalled). */
  progressed(stallMs: number): Promise<void> {
    this.progress ??= new ProgressWait(stallMs, () => {
      this.progress = undefined;
      this.stalled = true;
    });
    return this.progress.promise;
  }

  private madeProgress(): void {
    this.stalled = false;
    const wait = this.progress;
    this.progress = undefined;
    wait?.resolve();
  }

  private async run(): Promise<void> {
    try {
      await this.deliverAll();
    } finally {
      this.finished = true;
      this.madeProgress();
    }
  }

  private async deliverAll(): Promise<void> {
    while (await this.deliverOne(this.ending.signal, this.stopping.signal));
  }

  /**
   * Gathers one delivery, exports it and commits it; false once the stream is over or the runner stopped.
   * A call of its own per delivery, so that no suspended frame keeps a delivered batch: written as one
   * loop, the frame waiting for the next gathering still held the last batch's records in its registers,
   * and after a 200,000-span request an idle daemon kept ~250 MiB of delivered spans alive.
   */
  private async deliverOne(ending: AbortSignal, signal: AbortSignal): Promise<boolean> {
    const reader = this.#reader!;
    const { batcher } = this.options;
    if (ending.aborted) return false;
    const records = await batcher.gather(reader, ending);
    if (records.length === 0) return false;
    for (const part of batcher.split(joinSpans(records))) {
      if (!(await this.deliver(part, signal))) return false;
    }
    await reader.commit(records[records.length - 1].seq);
    this.madeProgress();
    return true;
  }

  /** Delivers or dead-letters one export call; false only when stopped before that. */
  private async deliver(spans: Span[], signal: AbortSignal): Promise<boolean> {
    const { exporter, retry, maxAttempts, logger } = this.options;
    let interval = retry.initial_interval;
    let failedAttempts = 0;
    let failingSince: number | undefined;
    const metrics = this.metrics;
    metrics.batch(spans.length);
    for (;;) {
      if (signal.aborted) return false;
      const started = performance.now();
      try {
        await exporter.export(spans);
        metrics.sent(spans.length, started);
        this.failingSince = undefined;
        this.delivered += spans.length;
        if (failingSince !== undefined) {
          logger.info('export recovered', { spans: spans.length, failed_for_ms: Date.now() - failingSince });
        }
        return true;
      } catch (err) {
        if (err instanceof PermanentError) {
          // The exporter may have delivered part of the batch: only what it names failed.
          const failed = err.spans ?? spans;
          metrics.failed(failed.length, started);
          if (failed.length < spans.length) metrics.sent(spans.length - failed.length, started);
          await this.deadLetter(failed, err.message);
          // The exporter may have delivered the rest of the batch and named only what it could not send.
          if (err.spans) this.delivered += spans.length - err.spans.length;
          return true;
        }
        metrics.failed(spans.length, started);
        failingSince ??= Date.now();
        this.failingSince ??= failingSince;
        this.madeProgress();
        const retryable = err instanceof RetryableError;
        if (!retryable && ++failedAttempts >= maxAttempts) {
          await this.deadLetter(spans, `export failed ${failedAttempts} times: ${describe(err)}`);
          return true;
        }
        const wait = Math.max(interval, retryable ? (err.retryAfterMs ?? 0) : 0);
        logger.warn('export failed, retrying', {
          error: describe(err),
          spans: spans.length,
          next_attempt_at: new Date(Date.now() + wait).toISOString(),
        });
        await sleep(wait, signal);
        interval = Math.min(interval * retry.multiplier, retry.max_interval);
      }
    }
  }

  private async deadLetter(spans: Span[], reason: string): Promise<void> {
    await this.options.deadLetters.write(spans, reason);
    this.deadLettered += spans.length;
    this.metrics.deadLettered(spans.length);
    this.options.logger.error('spans dead-lettered', { spans: spans.length, reason });
  }
}

/**
 * The spans of the gathered records as one array, sized once: built by push(), the array of a full
 * 8192-span batch re-grew its way up and was about 60% of the bytes this loop, the stream and the
 * batcher allocated per request (measured, docs/performance.md, round 0350). One record is handed on as it is:
 * exporters only read what they are given (the same record also goes to every other exporter).
 */
function joinSpans(records: readonly StreamRecord[]): Span[] {
  if (records.length === 1) return records[0].spans;
  let total = 0;
  for (let i = 0; i < records.length; i++) total += records[i].spans.length;
  const spans: Span[] = new Array(total);
  let at = 0;
  for (let i = 0; i < records.length; i++) {
    const part = records[i].spans;
    for (let j = 0; j < part.length; j++) spans[at++] = part[j];
  }
  return spans;
}

/** One shared wait for a runner's next progress, given up after `stallMs`. */
class ProgressWait {
  readonly promise: Promise<void>;
  resolve!: () => void;
  private readonly timer: NodeJS.Timeout;

  constructor(stallMs: number, onStall: () => void) {
    this.promise = new Promise((resolve) => {
      this.resolve = () => {
        clearTimeout(this.timer);
        resolve();
      };
    });
    this.timer = setTimeout(() => {
      onStall();
      this.resolve();
    }, stallMs).unref();
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
