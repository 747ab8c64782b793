// Reload without loss (SIGHUP, `POST /-/reload`): re-read the config the daemon was started with (file
// and --set), and if it is valid, build the next graph from the running one and let it take over
// (pipeline/graph.ts takeOver). An invalid config is refused with its problems and the running one stays.
// Reloads run one at a time, in the order they were asked for (docs/decisions/0660).
import { ConfigError, formatProblem } from '../config/problem.ts';
import type { LoadedConfig } from '../config/load.ts';
import type { Graph } from '../pipeline/graph.ts';
import type { Logger } from '../pipeline/log.ts';

export interface ReloadOutcome {
  /** `applied`: the new config runs; `invalid`: it was refused, the running one stays; `failed`: valid,
   *  but a component could not start (an exporter's broker, a new stream's directory), the running one stays. */
  result: 'applied' | 'invalid' | 'failed';
  /** The generation running after this reload (1: the config the daemon started with). */
  generation: number;
  /** Why it was refused or failed, one line each. */
  problems?: string[];
}

/** What a reload starts from and leaves running: at least the config (the primary's has its text too). */
export interface Running {
  config: LoadedConfig;
}

/** The graph and config a single process (or a worker) runs. */
export interface GraphRunning extends Running {
  graph: Graph;
}

/** Thrown by a commit step that could not apply the config: the running one stays. */
export class ReloadFailed extends Error {
  readonly result: 'invalid' | 'failed';
  readonly problems: string[];
  /** More fields for the log line (which workers applied it). */
  readonly details: Record<string, unknown>;

  constructor(result: 'invalid' | 'failed', problems: string[], details: Record<string, unknown> = {}) {
    super(problems.join('; '));
    this.result = result;
    this.problems = problems;
    this.details = details;
  }
}

export interface ReloaderOptions<R extends Running, L extends Running> {
  /** Loads the config again from where the daemon's came from, or from `text` (a worker: the text the
   *  primary sent with the reload); throws ConfigError. */
  load(text?: string): L;
  /**
   * Makes the loaded config the running one (a single process: builds the next graph and lets it take
   * over; the primary: asks every worker). Throws ReloadFailed, or any error (result `failed`).
   */
  commit(loaded: L, running: R, trigger: string): Promise<R>;
  logger: Logger;
  /** Counts each reload by its result. */
  counted?(result: ReloadOutcome['result']): void;
  /** More fields for the `config reloaded` line. */
  applied?(running: R): Record<string, unknown>;
}

/**
 * Settings read once at start (the process's stream storage, its telemetry listener and log level, its
 * memory limits): a reload that changes them is refused, saying they need a restart.
 */
export function restartOnlyChanges(running: LoadedConfig, next: LoadedConfig): string[] {
  const changed: string[] = [];
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (!same(running.storage, next.storage)) changed.push('storage');
  if (running.service.workers !== next.service.workers) changed.push('service.workers');
  if (!same(running.service.telemetry, next.service.telemetry)) changed.push('service.telemetry');
  if (running.service.memory_limit_mib !== next.service.memory_limit_mib) changed.push('service.memory_limit_mib');
  if (running.service.memory_spike_limit_mib !== next.service.memory_spike_limit_mib) changed.push('service.memory_spike_limit_mib');
  if (running.service.memory_release_after_idle !== next.service.memory_release_after_idle) changed.push('service.memory_release_after_idle');
  return changed.map((key) => `${key}: changed, and takes effect only when tracehop restarts`);
}

/**
 * Runs reloads one at a time, in the order asked for, once the daemon has started: loads the config,
 * refuses an invalid one or one that changes restart-only settings, and hands a valid one to `commit`.
 * `R`: what runs (a graph and its config, or the primary's config and text); `L`: what `load` reads.
 */
export class Reloader<R extends Running, L extends Running = R> {
  #running: R;
  #generation = 1;
  /** Reloads run in turn; the first waits for `started`. */
  #queue: Promise<unknown>;
  #begin!: () => void;
  #closed = false;
  readonly #options: ReloaderOptions<R, L>;

  constructor(running: R, options: ReloaderOptions<R, L>) {
    this.#running = running;
    this.#options = options;
    this.#queue = new Promise<void>((resolve) => { this.#begin = resolve; });
  }

  /** The daemon has started: a reload asked for during the start runs now. */
  started(): void {
    this.#begin();
  }

  /** What runs now. */
  get running(): R {
    return this.#running;
  }

  /** The generation running now (1: the config the daemon started with). */
  get generation(): number {
    return this.#generation;
  }

  /** Reloads after every reload asked for before this one; `trigger` is logged. */
  reload(trigger: string, text?: string): Promise<ReloadOutcome> {
    const next = this.#queue.then(() => this.#closed
      ? { result: 'failed' as const, generation: this.#generation, problems: ['tracehop is shutting down'] }
      : this.#reload(trigger, text));
    this.#queue = next.catch(() => {});
    return next;
  }

  /** Shutdown has begun: refuses later reloads, and resolves once the one under way (if any) is over. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#begin();
    await this.#queue;
  }

  async #reload(trigger: string, text: string | undefined): Promise<ReloadOutcome> {
    const { logger } = this.#options;
    const { outcome, details } = await this.#apply(trigger, text);
    this.#options.counted?.(outcome.result);
    if (outcome.result === 'applied') {
      const { config } = this.#running;
      logger.info('config reloaded', {
        generation: outcome.generation, trigger, config: config.source,
        pipelines: pipelinesSummary(config),
        ...this.#options.applied?.(this.#running),
      });
    } else {
      logger.error(outcome.result === 'invalid' ? 'config reload refused: the running config stays' : 'config reload failed: the running config stays', {
        generation: outcome.generation, trigger, problems: outcome.problems, ...details,
      });
    }
    return outcome;
  }

  async #apply(trigger: string, text: string | undefined): Promise<{ outcome: ReloadOutcome; details?: Record<string, unknown> }> {
    const generation = this.#generation;
    let loaded: L;
    try {
      loaded = this.#options.load(text);
    } catch (error) {
      const problems = error instanceof ConfigError ? error.problems.map(formatProblem) : [(error as Error).message];
      return { outcome: { result: 'invalid', generation, problems } };
    }
    const restartOnly = restartOnlyChanges(this.#running.config, loaded.config);
    if (restartOnly.length > 0) return { outcome: { result: 'invalid', generation, problems: restartOnly } };
    for (const warning of loaded.config.warnings) this.#options.logger.warn(warning);
    try {
      this.#running = await this.#options.commit(loaded, this.#running, trigger);
    } catch (error) {
      if (error instanceof ReloadFailed) return { outcome: { result: error.result, generation, problems: error.problems }, details: error.details };
      return { outcome: { result: 'failed', generation, problems: [(error as Error).message] } };
    }
    this.#generation = generation + 1;
    return { outcome: { result: 'applied', generation: this.#generation } };
  }
}

/** The pipelines of a config as the start-up and reload log lines show them. */
export function pipelinesSummary(config: LoadedConfig) {
  return config.pipelines.map((p) => ({ id: p.id, receivers: p.receivers, processors: p.processors, exporters: p.exporters }));
}

/** A graph's commit step: builds the next graph from the running one and lets it take over. */
export function takeOverWith(build: (config: LoadedConfig, previous: Graph) => Promise<Graph>) {
  return async (loaded: Running, running: GraphRunning): Promise<GraphRunning> => {
    const graph = await build(loaded.config, running.graph);
    await graph.takeOver(running.graph, loaded.config.service.shutdown_timeout);
    return { graph, config: loaded.config };
  };
}
