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

export interface Running {
  graph: Graph;
  config: LoadedConfig;
}

export interface ReloaderOptions {
  /** Loads the config again from where the daemon's came from; throws ConfigError. */
  load(): LoadedConfig;
  /** The next graph for `config`, built from the running one (not started), once the components it
   *  uses are imported. */
  build(config: LoadedConfig, previous: Graph): Promise<Graph>;
  logger: Logger;
  /** Counts each reload by its result. */
  counted?(result: ReloadOutcome['result']): void;
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

export class Reloader {
  #running: Running;
  #generation = 1;
  /** Reloads run in turn; the first waits for `started`. */
  #queue: Promise<unknown>;
  #begin!: () => void;
  #closed = false;
  readonly #options: ReloaderOptions;

  constructor(running: Running, options: ReloaderOptions) {
    this.#running = running;
    this.#options = options;
    this.#queue = new Promise<void>((resolve) => { this.#begin = resolve; });
  }

  /** The first graph has started: a reload asked for during the start runs now. */
  started(): void {
    this.#begin();
  }

  /** The graph and config running now. */
  get running(): Running {
    return this.#running;
  }

  /** Reloads after every reload asked for before this one; `trigger` is logged. */
  reload(trigger: string): Promise<ReloadOutcome> {
    const next = this.#queue.then(() => this.#closed
      ? { result: 'failed' as const, generation: this.#generation, problems: ['tracehop is shutting down'] }
      : this.#reload(trigger));
    this.#queue = next.catch(() => {});
    return next;
  }

  /** Shutdown has begun: refuses later reloads, and resolves once the one under way (if any) is over. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#begin();
    await this.#queue;
  }

  async #reload(trigger: string): Promise<ReloadOutcome> {
    const { logger } = this.#options;
    const outcome = await this.#apply();
    this.#options.counted?.(outcome.result);
    if (outcome.result === 'applied') {
      const { config } = this.#running;
      logger.info('config reloaded', {
        generation: outcome.generation, trigger, config: config.source,
        pipelines: config.pipelines.map((p) => ({ id: p.id, receivers: p.receivers, processors: p.processors, exporters: p.exporters })),
      });
    } else {
      logger.error(outcome.result === 'invalid' ? 'config reload refused: the running config stays' : 'config reload failed: the running config stays', {
        generation: outcome.generation, trigger, problems: outcome.problems,
      });
    }
    return outcome;
  }

  async #apply(): Promise<ReloadOutcome> {
    const generation = this.#generation;
    let config: LoadedConfig;
    try {
      config = this.#options.load();
    } catch (error) {
      const problems = error instanceof ConfigError ? error.problems.map(formatProblem) : [(error as Error).message];
      return { result: 'invalid', generation, problems };
    }
    const restartOnly = restartOnlyChanges(this.#running.config, config);
    if (restartOnly.length > 0) return { result: 'invalid', generation, problems: restartOnly };
    for (const warning of config.warnings) this.#options.logger.warn(warning);
    const previous = this.#running.graph;
    let graph: Graph;
    try {
      graph = await this.#options.build(config, previous);
      await graph.takeOver(previous, config.service.shutdown_timeout);
    } catch (error) {
      return { result: 'failed', generation, problems: [(error as Error).message] };
    }
    this.#running = { graph, config };
    this.#generation = generation + 1;
    return { result: 'applied', generation: this.#generation };
  }
}
