// `/metrics` of a daemon with several workers: one answer, the sum of every worker's series, with the
// same names and labels as a single process has (so dashboards and alerts need no change). Each scrape
// asks every worker for its registry as JSON over IPC and adds them up with prom-client's aggregator.
//
// A sum would drop when a worker dies and its replacement starts counting from zero, which Prometheus'
// rate() reads as a counter reset of the whole sum (a spike). So the counters and histograms a dead
// worker last reported are kept and added to every later answer: the sum only grows. What a worker
// counted after the last scrape and before it died is lost, as for a single process that dies.
import { AggregatorRegistry, Counter, Gauge, type Registry } from '../../pipeline/telemetry/prom-client.ts';
import type { MetricsJson } from './messages.ts';

/**
 * The primary's own series, never the workers' sum: the build (one daemon), and the reloads (one reload
 * of the daemon is one reload of every worker: a sum would count it N times).
 */
const NOT_SUMMED = /_build_info$|_config_reloads_total$/;

export class ClusterMetrics {
  /** The last answer of each worker, by worker index. */
  readonly #last = new Map<number, MetricsJson>();
  /** What dead workers had counted, folded into one list. */
  #retired: MetricsJson = [];
  readonly #own: Registry;
  readonly #restarts: Counter;

  /**
   * `own`: the primary's registry (build info, reloads), served beside the workers' sum, where the
   * workers' own series go too: how many are configured and running, and how often one was restarted.
   */
  constructor(own: Registry, workers: number, running: () => number) {
    this.#own = own;
    new Gauge({ name: 'tracehop_workers', help: 'service.workers: the worker processes the daemon runs.', registers: [own], collect() { this.set(workers); } });
    new Gauge({ name: 'tracehop_workers_running', help: 'Worker processes running now (less than tracehop_workers while one restarts).', registers: [own], collect() { this.set(running()); } });
    this.#restarts = new Counter({ name: 'tracehop_worker_restarts_total', help: 'Worker processes started again after they exited.', registers: [own] });
  }

  /** A worker that exited is started again. */
  restarted(): void {
    this.#restarts.inc();
  }

  get contentType(): string {
    return this.#own.contentType;
  }

  /** Worker `index` answered a scrape. */
  reported(index: number, metrics: MetricsJson): void {
    this.#last.set(index, metrics.filter((m) => !NOT_SUMMED.test(m.name)));
  }

  /** Worker `index` died: what it counted stays in the sum. */
  async retired(index: number): Promise<void> {
    const last = this.#last.get(index);
    this.#last.delete(index);
    if (last === undefined) return;
    // At run time `type` is prom-client's name of the kind ('counter'), whatever its typings say.
    const monotonic = last.filter((m) => ['counter', 'histogram'].includes(String(m.type)));
    this.#retired = await AggregatorRegistry.aggregate([this.#retired, monotonic]).getMetricsAsJSON() as MetricsJson;
  }

  /** The text answer from the workers' last reports (ask them first: `reported`). */
  async text(): Promise<string> {
    const own = await this.#own.getMetricsAsJSON();
    const sum = AggregatorRegistry.aggregate([own, this.#retired, ...this.#last.values()]);
    return sum.metrics();
  }
}
