// What the single process and the primary share at start: the telemetry listener (none for
// `service.telemetry.metrics.address: none`) and the fields of the start-up log line.
import type { LoadedConfig } from '../config/load.ts';
import type { Logger } from '../pipeline/log.ts';
import { MetricsServer, type MetricsSource, type TapSource } from './metrics-server.ts';
import { pipelinesSummary, type ReloadOutcome } from './reload.ts';
import { version } from './version.ts';

/** The telemetry listener of `config`, or undefined when its address is `none`. */
export function metricsServerFor(
  config: LoadedConfig,
  metrics: MetricsSource,
  taps: TapSource,
  logger: Logger,
  reload: (trigger: string) => Promise<ReloadOutcome>,
): MetricsServer | undefined {
  const { address } = config.service.telemetry.metrics;
  return address === 'none' ? undefined : new MetricsServer(address, metrics, taps, logger.child({ component: 'telemetry' }), reload);
}

/** The fields of the `tracehop started` (or `worker started`) line; `extra` goes after `config`. */
export function startedFields(
  config: LoadedConfig,
  endpoints: Record<string, string[]>,
  metricsServer: MetricsServer | undefined,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const metricsUrl = metricsServer?.url();
  return {
    version: version(),
    config: config.source,
    ...extra,
    endpoints: { ...endpoints, ...(metricsUrl === undefined ? {} : { metrics: [metricsUrl] }) },
    pipelines: pipelinesSummary(config),
    storage: config.storage.type,
  };
}
