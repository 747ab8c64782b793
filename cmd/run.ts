// `tracehop [--config FILE] [--set path=value]...`: load, start, run until SIGTERM/SIGINT, drain, exit;
// SIGHUP (or `POST /-/reload` on the telemetry address) reloads the config (reload.ts).
import { DEFAULT_CONFIG, DEFAULT_CONFIG_NAME } from '../config/default.ts';
import { loadConfigFile, loadConfigText, type LoadedConfig } from '../config/load.ts';
import { Graph, type GraphOptions } from '../pipeline/graph.ts';
import { createLogger, type Logger } from '../pipeline/log.ts';
import { createMemoryLimiter } from '../pipeline/memory-limit.ts';
import { createDiskStream } from '../pipeline/stream/disk/disk-stream.ts';
import { nodeIo, withSyncTiming } from '../pipeline/stream/disk/io.ts';
import { ServiceMetrics, type StreamMetrics } from '../pipeline/telemetry/metrics.ts';
import { Taps } from '../pipeline/tap.ts';
import { MemoryStream } from '../pipeline/stream/memory.ts';
import { join } from 'node:path';
import type { IngestStream } from '../pipeline/stream/stream.ts';
import type { DeadLetterSink } from '../pipeline/runner.ts';
import { builtinRegistry } from './components.ts';
import { MetricsServer } from './metrics-server.ts';
import { Reloader } from './reload.ts';
import { version } from './version.ts';

const RETRY_AFTER_MS = 1000;
/** How often the memory limiter checks without a request (the Collector's memory_limiter check_interval). */
const MEMORY_CHECK_INTERVAL_MS = 1000;
/** After this long without a request the memory limiter gives V8's pooled pages back (memory-limit.ts). */
const IDLE_RELEASE_MS = 30_000;

export async function runDaemon(configPath: string | undefined, sets: readonly string[] = []): Promise<number> {
  const registry = builtinRegistry();
  // Read again by a reload: the same file and overrides, and the environment as it is then.
  const load = () => configPath
    ? loadConfigFile(configPath, registry, process.env, sets)
    : loadConfigText(DEFAULT_CONFIG, DEFAULT_CONFIG_NAME, registry, process.env, sets);
  // Config errors throw ConfigError; main prints every problem.
  const config = load();
  const logger = createLogger({ level: config.service.telemetry.logs.level });
  for (const warning of config.warnings) logger.warn(warning);

  const limiter = createMemoryLimiter({
    limitMib: config.service.memory_limit_mib,
    spikeLimitMib: config.service.memory_spike_limit_mib,
    retryAfterMs: RETRY_AFTER_MS,
    idleReleaseMs: IDLE_RELEASE_MS,
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
    createStream: (pipelineId, deadLetters, streamMetrics) => createStream(loaded, pipelineId, deadLetters, logger, streamMetrics),
    admission: () => limiter.check(),
    retryAfterMs: RETRY_AFTER_MS,
    metrics,
    taps,
  });
  const reloader = new Reloader({ graph: new Graph(config, graphOptions(config)), config }, {
    load,
    build: (loaded, previous) => new Graph(loaded, graphOptions(loaded), previous),
    logger: logger.child({ component: 'reload' }),
    counted: (result) => metrics.reloaded(result),
  });
  const { graph } = reloader.running;
  metrics.buildInfo(version());
  metrics.memoryLimiter(() => limiter.lastSample(), config.service.memory_limit_mib * 1024 * 1024);
  const { address } = config.service.telemetry.metrics;
  const metricsServer = address === 'none'
    ? undefined
    : new MetricsServer(address, metrics, taps, logger.child({ component: 'telemetry' }), (trigger) => reloader.reload(trigger));
  if (metricsServer) metrics.collectProcessMetrics();
  // Signal handlers before anything starts: a receiver may acknowledge spans as soon as it listens, and a
  // SIGTERM that found Node's default action (a supervisor may send one the moment it reads the start-up
  // line) would kill the process without draining them; SIGHUP's would end it too. A signal during
  // start-up is acted on once the start is over.
  const signal = firstSignal();
  const reload = () => void reloader.reload('SIGHUP');
  process.on('SIGHUP', reload);
  try {
    // First: the metrics cover the whole start, and a taken port stops the daemon before any receiver binds.
    await metricsServer?.start();
    await graph.start();
  } catch (err) {
    logger.error(`cannot start: ${(err as Error).message}`);
    process.off('SIGHUP', reload);
    await reloader.close();
    await graph.shutdown(1000).catch(() => {});
    clearInterval(memoryCheck);
    await metricsServer?.shutdown();
    return 1;
  }
  const metricsUrl = metricsServer?.url();
  logger.info('tracehop started', {
    version: version(),
    config: config.source,
    endpoints: { ...graph.endpoints(), ...(metricsUrl === undefined ? {} : { metrics: [metricsUrl] }) },
    pipelines: config.pipelines.map((p) => ({ id: p.id, receivers: p.receivers, processors: p.processors, exporters: p.exporters })),
    storage: config.storage.type,
  });
  reloader.started();
  try {
    const received = await signal;
    process.off('SIGHUP', reload);
    // After the reload under way, if any: the graph it built is the one to stop.
    await reloader.close();
    const { graph: running, config: runningConfig } = reloader.running;
    return await stop(running, runningConfig, logger, received);
  } finally {
    clearInterval(memoryCheck);
    // Last: the drain can be watched on the metrics.
    await metricsServer?.shutdown();
  }
}

function createStream(
  config: LoadedConfig,
  pipelineId: string,
  deadLetters: (exporterId: string) => DeadLetterSink,
  logger: Logger,
  metrics: StreamMetrics,
): IngestStream {
  const { storage } = config;
  if (storage.type === 'memory') return new MemoryStream({ maxBytes: storage.max_bytes, retryAfterMs: RETRY_AFTER_MS });
  const exporters = config.pipelines.find((p) => p.id === pipelineId)!.exporters;
  // A record that keeps killing the process is dead-lettered after the smallest max_attempts of the
  // pipeline's exporters, into the dead-letter file of the exporter that was delivering it.
  const maxAttempts = Math.min(...exporters.map((id) =>
    ((config.exporters.get(id)!.config.dead_letter as { max_attempts?: number } | undefined)?.max_attempts ?? 10)));
  return createDiskStream({
    // `<directory>/<pipeline id with / as _>/` (ARCHITECTURE.md)
    directory: join(storage.directory, pipelineId.replaceAll('/', '_')),
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

/**
 * The first SIGTERM or SIGINT. Its handlers are removed then, so a second signal during the drain ends
 * the process at once, as an operator pressing Ctrl-C twice expects.
 */
function firstSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
      resolve(signal);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
}

async function stop(graph: Graph, config: LoadedConfig, logger: Logger, signal: NodeJS.Signals): Promise<number> {
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
