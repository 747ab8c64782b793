// The primary process of a daemon with `service.workers` above 1 (README.md here). It forks the
// workers, each of which runs the whole pipeline on its share of the traffic, and does no work per span
// itself unless someone taps: it accepts each new connection and hands it to a worker (below), restarts
// a worker that dies (same index, so the worker recovers its own stream shard), serves the health
// probes and `/metrics` for all of them, coordinates reloads (SIGHUP, `POST /-/reload`) and the
// shutdown (SIGTERM, SIGINT). While someone runs `tracehop tap`, it relays the workers' tap lines to
// the watcher (one write and one acknowledgement per worker message, cluster-taps.ts); a watcher that
// does not read stops the workers from encoding, and then costs the primary nothing.
//
// Connections: SCHED_RR, node:cluster's default on Linux. The primary accepts each new connection on the
// listening socket and hands it to the next free worker; from then on the connection's bytes go between
// the client and that worker, never through the primary. Measured (docs/performance.md, "Every core"):
// 8 keep-alive connections opened at once went 4/4, 5/3 to two workers this way, but 1/7, 8/0, 2/6 with
// SCHED_NONE (every worker accepting on the shared socket: the first one awake takes every connection
// waiting), and with a few long-lived connections (SDKs, gRPC channels, a proxy's pool) that spread
// is the load's spread. The cost is the primary's per new connection (about 0.1 ms of CPU), nothing
// per request: keep-alive clients pay it once. SO_REUSEPORT (each worker its own socket, the kernel
// hashing connections over them) spreads as evenly but needs every worker to bind the same concrete
// port (port 0 resolved first), is not open to the gRPC server, and lets any other process of the same
// user that binds the port with it take a share of the connections silently.
import cluster, { type Worker } from 'node:cluster';
import { isSea } from 'node:sea';
import { createLogger, type Logger } from '../../pipeline/log.ts';
import type { Registry } from '../../pipeline/registry.ts';
import type { ServiceStatus } from '../../pipeline/status.ts';
import { ServiceMetrics } from '../../pipeline/telemetry/metrics.ts';
import { metricsServerFor, startedFields } from '../started-line.ts';
import { ReloadFailed, Reloader, type ReloadOutcome } from '../reload.ts';
import type { ConfigRead } from '../../config/load.ts';
import { firstSignal } from '../signals.ts';
import { version } from '../version.ts';
import { ClusterMetrics } from './cluster-metrics.ts';
import { clusterStatus } from './cluster-status.ts';
import { ClusterTaps } from './cluster-taps.ts';
import { isToPrimary, type MetricsJson, type ToPrimary, type ToWorker } from './messages.ts';
import { PrimaryExtensions } from './primary-extensions.ts';
import { WORKER_INDEX_VARIABLE } from './worker-view.ts';

/** How long a scrape waits for a worker's metrics; one that does not answer counts with its last ones. */
const METRICS_WAIT_MS = 2000;
/** A worker that dies this soon after it started is restarted after a growing delay (a crash loop). */
const STABLE_AFTER_MS = 10_000;
const FIRST_RESTART_DELAY_MS = 100;
const MAX_RESTART_DELAY_MS = 10_000;

/** One worker index: the process running it now (none while it restarts) and what it last reported. */
interface Slot {
  index: number;
  worker: Worker | undefined;
  startedAt: number;
  restartDelayMs: number;
  status: ServiceStatus | undefined;
  endpoints: Record<string, string[]> | undefined;
  /** The worker running now has said `started`: it hears reloads (the primary asks no other). */
  started: boolean;
  /** The config text last sent to the worker running now (at its start or in a reload). */
  text: string | undefined;
}

export async function runPrimary(initial: ConfigRead, load: () => ConfigRead, registry: Registry): Promise<number> {
  return new Primary(initial, load, registry).run();
}

/** What the primary runs: the config, and its text (what a worker loads when it starts or reloads). */
type PrimaryRunning = ConfigRead;

class Primary {
  readonly #reloader: Reloader<PrimaryRunning>;
  readonly #logger: Logger;
  readonly #slots: Slot[];
  readonly #metrics: ClusterMetrics;
  /** The primary's own series (build info, reloads), summed with the workers' by #metrics. */
  readonly #own = new ServiceMetrics();
  readonly #extensions: PrimaryExtensions;
  /** `GET /tap` here: each watcher's tap asked of every worker, their lines merged. */
  readonly #taps: ClusterTaps;
  /** Answers awaited from workers, by request id. */
  readonly #pending = new Map<number, (message: ToPrimary) => void>();
  #nextId = 1;
  #stopping = false;
  /** Settles when every worker has started once (or one could not). */
  #startup!: { resolve: () => void; reject: (error: Error) => void };

  constructor(initial: ConfigRead, load: () => ConfigRead, registry: Registry) {
    const config = initial.config;
    this.#logger = createLogger({ level: config.service.telemetry.logs.level }, { worker: 'primary' });
    this.#slots = Array.from({ length: config.service.workers }, (_, index) => ({
      index, worker: undefined, startedAt: 0, restartDelayMs: FIRST_RESTART_DELAY_MS, status: undefined, endpoints: undefined,
      started: false, text: undefined,
    }));
    this.#extensions = new PrimaryExtensions(registry, this.#logger, () => clusterStatus(this.#slots.map((s) => s.status)));
    this.#taps = new ClusterTaps(() => this.#reloader.running.config.pipelines.map((p) => p.id), (message) => {
      for (const slot of this.#slots) if (slot.started) this.#tell(slot, message);
    });
    this.#own.buildInfo(version());
    this.#metrics = new ClusterMetrics(this.#own.registry, this.#slots.length, () => this.#slots.filter((s) => s.worker !== undefined).length);
    // The config is checked here first, so an invalid one reaches no worker; the first reload waits
    // until every worker has started (one asked earlier could not be heard yet).
    this.#reloader = new Reloader<PrimaryRunning>(initial, {
      load,
      commit: (loaded, _running, trigger) => this.#reloadWorkers(loaded, trigger),
      logger: this.#logger.child({ component: 'reload' }),
      counted: (result) => this.#own.reloaded(result),
      applied: () => ({ workers: this.#slots.length }),
    });
  }

  async run(): Promise<number> {
    const { config } = this.#reloader.running;
    const logger = this.#logger;
    const metricsServer = metricsServerFor(config, { contentType: this.#metrics.contentType, text: () => this.#scrape() }, this.#taps, logger,
      (trigger) => this.#reloader.reload(trigger));
    const signal = firstSignal();
    const reload = () => void this.#reloader.reload('SIGHUP');
    process.on('SIGHUP', reload);
    // The primary hands each new connection to a worker; set before the first fork (the header says why).
    cluster.schedulingPolicy = cluster.SCHED_RR;
    if (isSea()) {
      // The single executable has no script: node:cluster would pass argv[1] (which Node sets to the
      // executable there) as one, and the Node flags as arguments the executable does not read (its own
      // flags are built in). The first argument takes the script's place; Node puts the executable
      // back in front of it in the worker, whose argv then reads as the primary's.
      const args = process.argv.slice(2);
      cluster.setupPrimary({ execArgv: [], exec: args[0], args: args.slice(1) });
    }
    try {
      await metricsServer?.start();
      await this.#extensions.start(config);
      const started = new Promise<void>((resolve, reject) => { this.#startup = { resolve, reject }; });
      for (const slot of this.#slots) this.#fork(slot);
      // A signal during start-up is acted on once every worker has started, as in a single process.
      await started;
      this.#reloader.started();
    } catch (error) {
      logger.error(`cannot start: ${(error as Error).message}`);
      process.off('SIGHUP', reload);
      await this.#reloader.close();
      await this.#stopWorkers();
      await this.#extensions.shutdown();
      await metricsServer?.shutdown();
      return 1;
    }
    logger.info('tracehop started', startedFields(config, { ...this.#slots[0].endpoints, ...this.#extensions.endpoints() }, metricsServer, {
      workers: this.#slots.length,
      pids: this.#slots.map((s) => s.worker?.process.pid),
    }));
    const received = await signal;
    process.off('SIGHUP', reload);
    logger.info('shutting down', { signal: received, workers: this.#slots.length, timeout_ms: this.#reloader.running.config.service.shutdown_timeout });
    // A second signal while the workers drain: they end at once, and so does the primary.
    const hurry = (again: NodeJS.Signals) => {
      for (const slot of this.#slots) slot.worker?.process.kill(again);
    };
    process.once('SIGTERM', hurry);
    process.once('SIGINT', hurry);
    // After the reload under way, if any; later ones are refused.
    await this.#reloader.close();
    const failed = await this.#stopWorkers();
    await this.#extensions.shutdown();
    await metricsServer?.shutdown();
    if (failed.length > 0) {
      logger.error('workers stopped with acknowledged spans not delivered, or failed', { workers: failed });
      return 1;
    }
    logger.info('stopped');
    return 0;
  }

  /**
   * The primary's commit step of a reload: asks every started worker to load `loaded.text`. Applied
   * only when every worker applied it; a worker that failed keeps its running config and the problems
   * say which. A worker not started yet is not asked: it is caught up once it has started.
   */
  async #reloadWorkers(loaded: PrimaryRunning, trigger: string): Promise<PrimaryRunning> {
    const { text } = loaded;
    const outcomes = await Promise.all(this.#slots.map(async (slot): Promise<Omit<ReloadOutcome, 'generation'>> => {
      if (!slot.started) return { result: 'applied' };
      slot.text = text;
      const answer = await this.#ask(slot, { tracehop: 'reload', id: 0, trigger, text });
      if (answer === undefined || answer.tracehop !== 'reloaded') return { result: 'failed', problems: ['exited during the reload'] };
      return answer.outcome;
    }));
    if (outcomes.every((o) => o.result === 'applied')) {
      // Sent before the next reload's questions, so each worker applies them in order.
      this.#catchUp(text);
      await this.#extensions.reloaded(loaded.config);
      return loaded;
    }
    const problems = outcomes.flatMap((o, index) => (o.problems ?? []).map((p) => `worker ${index}: ${p}`));
    const result = outcomes.some((o) => o.result === 'failed') ? 'failed' : 'invalid';
    const applied = outcomes.flatMap((o, index) => (o.result === 'applied' ? [index] : []));
    throw new ReloadFailed(result, problems, { applied_by_workers: applied });
  }

  /**
   * Sends `text` to each of `slots` that has started and was last sent another: one that started on the
   * config text it was given while a reload was under way, or that was not asked because it was not started.
   */
  #catchUp(text: string, slots: Slot[] = this.#slots): void {
    for (const slot of slots) {
      if (!slot.started || slot.text === text) continue;
      slot.text = text;
      void this.#ask(slot, { tracehop: 'reload', id: 0, trigger: 'worker started', text }).then((answer) => {
        if (answer?.tracehop === 'reloaded' && answer.outcome.result === 'applied') return;
        this.#logger.error('a worker that started during a reload could not apply the running config', {
          worker: slot.index, problems: answer?.tracehop === 'reloaded' ? answer.outcome.problems : ['exited during the reload'],
        });
      });
    }
  }

  /** Asks every running worker for its metrics, then answers with the sum. */
  async #scrape(): Promise<string> {
    await Promise.all(this.#slots.map(async (slot) => {
      if (slot.worker === undefined) return;
      const answer = await this.#ask(slot, { tracehop: 'metrics', id: 0 }, METRICS_WAIT_MS);
      if (answer?.tracehop === 'metrics') this.#metrics.reported(slot.index, answer.metrics as MetricsJson);
    }));
    return this.#metrics.text();
  }

  /** Sends a question to the worker in `slot`; resolves with its answer, or undefined if it died or `waitMs` passed. */
  #ask(slot: Slot, question: ToWorker & { id: number }, waitMs?: number): Promise<ToPrimary | undefined> {
    const worker = slot.worker;
    if (worker === undefined || !worker.isConnected()) return Promise.resolve(undefined);
    const id = this.#nextId++;
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (answer: ToPrimary | undefined) => {
        clearTimeout(timer);
        this.#pending.delete(id);
        worker.off('exit', gone);
        resolve(answer);
      };
      const gone = () => done(undefined);
      if (waitMs !== undefined) timer = setTimeout(gone, waitMs);
      worker.once('exit', gone);
      this.#pending.set(id, done);
      worker.send({ ...question, id });
    });
  }

  /** Sends `message` to the worker in `slot`, if it can hear it. */
  #tell(slot: Slot, message: ToWorker): void {
    if (slot.worker?.isConnected()) slot.worker.send(message);
  }

  #fork(slot: Slot): void {
    const worker = cluster.fork({ [WORKER_INDEX_VARIABLE]: String(slot.index) });
    slot.worker = worker;
    slot.startedAt = Date.now();
    slot.status = undefined;
    slot.started = false;
    slot.text = undefined;
    // To this worker only, not to the slot's next one: an acknowledgement of its tap lines is its own.
    const reply = (message: ToWorker) => {
      if (worker.isConnected()) worker.send(message);
    };
    worker.on('message', (message: unknown) => {
      if (isToPrimary(message)) this.#heard(slot, message, reply);
    });
    worker.once('exit', (code, signal) => void this.#exited(slot, worker, code, signal));
  }

  #heard(slot: Slot, message: ToPrimary, reply: (message: ToWorker) => void): void {
    switch (message.tracehop) {
      case 'config?':
        slot.text = this.#reloader.running.text;
        slot.worker?.send({ tracehop: 'config', text: slot.text } satisfies ToWorker);
        return;
      case 'started':
        slot.endpoints = message.endpoints;
        slot.status = message.status;
        slot.started = true;
        // A reload applied while it started: it runs older config text.
        if (!this.#stopping) this.#catchUp(this.#reloader.running.text, [slot]);
        for (const ask of this.#taps.asks()) this.#tell(slot, ask);
        if (this.#slots.every((s) => s.endpoints !== undefined)) this.#startup.resolve();
        return;
      case 'status':
        slot.status = message.status;
        return;
      case 'tapped':
        this.#taps.tapped(message.tap, message.text, message.bytes, reply);
        return;
      case 'reloaded':
      case 'metrics':
        this.#pending.get(message.id)?.(message);
    }
  }

  async #exited(slot: Slot, worker: Worker, code: number | null, signal: string | null): Promise<void> {
    if (slot.worker !== worker) return;
    slot.worker = undefined;
    slot.status = undefined;
    slot.started = false;
    if (this.#stopping) return;
    if (slot.endpoints === undefined) {
      this.#startup.reject(new Error(`worker ${slot.index} exited with ${signal ?? code} before it started (its log lines say why)`));
      return;
    }
    await this.#metrics.retired(slot.index);
    const lived = Date.now() - slot.startedAt;
    slot.restartDelayMs = lived >= STABLE_AFTER_MS ? FIRST_RESTART_DELAY_MS : Math.min(slot.restartDelayMs * 2, MAX_RESTART_DELAY_MS);
    const delay = lived >= STABLE_AFTER_MS ? 0 : slot.restartDelayMs;
    this.#logger.error('worker exited: restarting it on its own stream shard', { worker: slot.index, code, signal, restart_in_ms: delay });
    setTimeout(() => {
      if (this.#stopping || slot.worker !== undefined) return;
      this.#metrics.restarted();
      this.#fork(slot);
    }, delay);
  }

  /** Tells every worker to stop (each drains as a single daemon does) and waits for them; returns the ones that failed. */
  async #stopWorkers(): Promise<Array<{ worker: number; code: number | null; signal: string | null }>> {
    this.#stopping = true;
    const failed: Array<{ worker: number; code: number | null; signal: string | null }> = [];
    await Promise.all(this.#slots.map(async (slot) => {
      const worker = slot.worker;
      if (worker === undefined) return;
      // A worker still starting may not listen yet (its first moments load the code): SIGTERM reaches
      // it either way, and ends it at once if it had not even set its handlers (it served nothing then).
      const starting = !slot.started;
      const exited = new Promise<void>((resolve) => worker.once('exit', (code, signal) => {
        if (code !== 0 && !(starting && signal === 'SIGTERM')) failed.push({ worker: slot.index, code, signal });
        resolve();
      }));
      if (worker.isConnected() && !starting) worker.send({ tracehop: 'stop' } satisfies ToWorker);
      else worker.process.kill('SIGTERM');
      await exited;
    }));
    return failed;
  }
}
