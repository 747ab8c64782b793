// `tracehop [--config FILE] [--set path=value]...`: load, start, run until SIGTERM/SIGINT, drain, exit;
// SIGHUP (or `POST /-/reload` on the telemetry address) reloads the config (reload.ts). With
// `service.workers` above 1 this process is the primary (workers/primary.ts) and forks the workers,
// each of which runs the daemon below on its own share of the config (workers/worker-view.ts).
import cluster from 'node:cluster';
import { DEFAULT_CONFIG, DEFAULT_CONFIG_NAME } from '../config/default.ts';
import { loadConfigText, readConfigText, type ConfigRead, type LoadedConfig } from '../config/load.ts';
import { Graph, type GraphOptions } from '../pipeline/graph.ts';
import { createLogger, type Logger } from '../pipeline/log.ts';
import { createMemoryLimiter } from '../pipeline/memory-limit.ts';
import { ServiceMetrics, type StreamMetrics } from '../pipeline/telemetry/metrics.ts';
import { Taps } from '../pipeline/tap.ts';
import { MemoryStream } from '../pipeline/stream/memory.ts';
import type { IngestStream } from '../pipeline/stream/stream.ts';
import type { DeadLetterSink } from '../pipeline/runner.ts';
import { builtinRegistry } from './components.ts';
import { metricsServerFor, startedFields } from './started-line.ts';
import { Reloader, takeOverWith, type GraphRunning, type Running } from './reload.ts';
import { firstSignal } from './signals.ts';
import { version } from './version.ts';
import { WorkerLink } from './workers/worker-link.ts';
import { shardDirectory, WORKER_INDEX_VARIABLE, workerConfig } from './workers/worker-view.ts';

const RETRY_AFTER_MS = 1000;
/** How often the memory limiter checks without a request (the Collector's memory_limiter check_interval). */
const MEMORY_CHECK_INTERVAL_MS = 1000;

/** Which worker this process is, when the primary forked it. */
export interface WorkerRole {
  index: number;
  count: number;
  /** Its channel to the primary, listening since the process began. */
  link: WorkerLink;
}

export async function runDaemon(configPath: string | undefined, sets: readonly string[] = []): Promise<number> {
  const registry = builtinRegistry();
  const fromText = (text: string) => loadConfigText(text, configPath ?? DEFAULT_CONFIG_NAME, registry, process.env, sets);
  // Read again by a reload: the same file and overrides, and the environment as it is then.
  // Config errors throw ConfigError; main prints every problem.
  const read = (): ConfigRead => {
    const text = configPath ? readConfigText(configPath) : DEFAULT_CONFIG;
    return { config: fromText(text), text };
  };
  const index = process.env[WORKER_INDEX_VARIABLE];
  if (cluster.isWorker && index !== undefined) {
    // Listening to the primary before anything else: a stop or reload it sends during the start is held.
    const link = new WorkerLink();
    const whole = fromText(await link.config());
    const role: WorkerRole = { index: Number(index), count: whole.service.workers, link };
    return serve(workerConfig(whole, role.index), (text) => workerConfig(fromText(text!), role.index), registry, role);
  }
  const first = read();
  if (first.config.service.workers > 1) return (await import('./workers/primary.ts')).runPrimary(first, read, registry);
  return serve(first.config, () => read().config, registry, undefined);
}

/** Runs the daemon in this process: the whole of it, or one worker's share (`role`). */
async function serve(config: LoadedConfig, load: (text?: string) => LoadedConfig, registry: ReturnType<typeof builtinRegistry>, role: WorkerRole | undefined): Promise<number> {
  const logger = createLogger({ level: config.service.telemetry.logs.level }, role === undefined ? {} : { worker: role.index });
  // The disk stream's code only for a config that stores on disk (storage changes need a restart).
  const disk = config.storage.type === 'disk' ? await loadDiskStream() : undefined;
  for (const warning of config.warnings) logger.warn(warning);

  const limiter = createMemoryLimiter({
    limitMib: config.service.memory_limit_mib,
    spikeLimitMib: config.service.memory_spike_limit_mib,
    retryAfterMs: RETRY_AFTER_MS,
    // After this long without a request the limiter gives V8's pooled pages back (memory-limit.ts).
    idleReleaseMs: config.service.memory_release_after_idle,
    logger: logger.child({ component: 'memory_limiter' }),
  });
  // Unreferenced: the check alone never keeps the process alive.
  const memoryCheck = setInterval(() => limiter.poll(), MEMORY_CHECK_INTERVAL_MS).unref();
  // Kept across reloads: counters go on counting, and a tap stays connected.
  const metrics = new ServiceMetrics();
  const taps = new Taps(config.pipelines.map((p) => p.id));
  const graphOptions = (loaded: LoadedConfig): GraphOptions => ({
    registry,
    logger,
    createStream: (pipelineId, deadLetters, streamMetrics) => createStream(loaded, pipelineId, deadLetters, logger, streamMetrics, role, disk),
    admission: () => limiter.check(),
    retryAfterMs: RETRY_AFTER_MS,
    metrics,
    taps,
  });
  // Only the components a config uses are imported (cmd/components.ts), the first config's now, a reload's
  // before its graph is built.
  await registry.load(config);
  const reloader = new Reloader<GraphRunning, Running>({ graph: new Graph(config, graphOptions(config)), config }, {
    // A worker loads the text the primary sent with the reload; a single process reads its file.
    load: (text) => ({ config: load(text) }),
    commit: takeOverWith(async (loaded, previous) => {
      await registry.load(loaded);
      return new Graph(loaded, graphOptions(loaded), previous);
    }),
    logger: logger.child({ component: 'reload' }),
    counted: (result) => metrics.reloaded(result),
  });
  const { graph } = reloader.running;
  metrics.buildInfo(version());
  metrics.memoryLimiter(() => limiter.lastSample(), config.service.memory_limit_mib * 1024 * 1024);
  const metricsServer = metricsServerFor(config, metrics, taps, logger, (trigger) => reloader.reload(trigger));
  // A worker's are summed by the primary, which serves them.
  if (metricsServer || role) metrics.collectProcessMetrics();
  // A worker is told to stop, reload and report by the primary (workers/primary.ts).
  const link = role?.link;
  link?.attach({
    status: () => reloader.running.graph.status(),
    reload: (trigger, text) => reloader.reload(trigger, text),
    metrics: () => metrics.registry.getMetricsAsJSON(),
    taps,
  });
  // Signal handlers before anything starts: a receiver may acknowledge spans as soon as it listens, and a
  // SIGTERM that found Node's default action (a supervisor may send one the moment it reads the start-up
  // line) would kill the process without draining them; SIGHUP's would end it too. A signal during
  // start-up is acted on once the start is over.
  const signal = firstSignal(link?.stopped());
  // A worker reloads when the primary says: a SIGHUP that reaches it too (a terminal's hangup goes to
  // the whole process group) must neither end it nor reload it twice.
  const reload = role ? () => {} : () => void reloader.reload('SIGHUP');
  process.on('SIGHUP', reload);
  try {
    // First: the metrics cover the whole start, and a taken port stops the daemon before any receiver binds.
    await metricsServer?.start();
    await graph.start();
  } catch (err) {
    logger.error(`cannot start: ${(err as Error).message}`);
    process.off('SIGHUP', reload);
    link?.close();
    await reloader.close();
    await graph.shutdown(1000).catch(() => {});
    clearInterval(memoryCheck);
    await metricsServer?.shutdown();
    return 1;
  }
  // The primary says `tracehop started` once every worker has.
  logger.info(role ? 'worker started' : 'tracehop started', startedFields(config, graph.endpoints(), metricsServer));
  reloader.started();
  link?.started(graph.endpoints());
  try {
    const received = await signal;
    process.off('SIGHUP', reload);
    // A tap goes on through the drain, as `GET /tap` does in one process.
    link?.stopping();
    // After the reload under way, if any: the graph it built is the one to stop.
    await reloader.close();
    const { graph: running, config: runningConfig } = reloader.running;
    return await stop(running, runningConfig, logger, received);
  } finally {
    link?.close();
    clearInterval(memoryCheck);
    // Last: the drain can be watched on the metrics.
    await metricsServer?.shutdown();
  }
}

type DiskStreamModules = Awaited<ReturnType<typeof loadDiskStream>>;

async function loadDiskStream() {
  const [{ createDiskStream }, { nodeIo, withSyncTiming }] = await Promise.all([
    import('../pipeline/stream/disk/disk-stream.ts'), import('../pipeline/stream/disk/io.ts'),
  ]);
  return { createDiskStream, nodeIo, withSyncTiming };
}

function createStream(
  config: LoadedConfig,
  pipelineId: string,
  deadLetters: (exporterId: string) => DeadLetterSink,
  logger: Logger,
  metrics: StreamMetrics,
  role: WorkerRole | undefined,
  disk: DiskStreamModules | undefined,
): IngestStream {
  const { storage } = config;
  if (storage.type === 'memory') return new MemoryStream({ maxBytes: storage.max_bytes, retryAfterMs: RETRY_AFTER_MS });
  const { createDiskStream, nodeIo, withSyncTiming } = disk!;
  const exporters = config.pipelines.find((p) => p.id === pipelineId)!.exporters;
  // A record that keeps killing the process is dead-lettered after the smallest max_attempts of the
  // pipeline's exporters, into the dead-letter file of the exporter that was delivering it.
  const maxAttempts = Math.min(...exporters.map((id) =>
    ((config.exporters.get(id)!.config.dead_letter as { max_attempts?: number } | undefined)?.max_attempts ?? 10)));
  return createDiskStream({
    // `<directory>/<pipeline id with / as _>/` (ARCHITECTURE.md), and `<worker>/` below it with several
    directory: shardDirectory(storage.directory, pipelineId, role),
    fsync: storage.fsync,
    fsyncIntervalMs: storage.fsync_interval,
    maxBytes: storage.max_bytes,
    logger: logger.child({ component: `storage/${pipelineId}` }),
    consumers: exporters,
    deadLetter: { maxAttempts, write: (exporterId, spans, reason) => deadLetters(exporterId).write(spans, reason) },
    io: withSyncTiming(nodeIo, metrics.synced),
    onGroupCommit: metrics.groupCommitted,
  });
}

async function stop(graph: Graph, config: LoadedConfig, logger: Logger, signal: string): Promise<number> {
  logger.info('shutting down', { signal, timeout_ms: config.service.shutdown_timeout });
  const undelivered = await graph.shutdown(config.service.shutdown_timeout);
  if (undelivered > 0) {
    logger.error('shutdown timed out with acknowledged spans not delivered', {
      undelivered,
      kept_on_disk: config.storage.type === 'disk',
    });
    return 1;
  }
  logger.info('stopped');
  return 0;
}
