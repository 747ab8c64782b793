// `extensions.health_check`: where the liveness and readiness probes are served, and when the daemon
// stops counting as ready.
import type { JsonSchema } from '../../pipeline/component.ts';
import { duration, endpoint, integer, object } from '../../pipeline/schema.ts';

export interface HealthCheckConfig {
  /** `host:port` of the probe listener; port 0 picks a free port (tests). */
  endpoint: string;
  /** Milliseconds an exporter may keep failing before the daemon is not ready. */
  exporter_failure_threshold: number;
  /** Percent of `storage.max_bytes` a pipeline's stream may hold before the daemon is not ready. */
  stream_high_water_percent: number;
}

export const DEFAULT_ENDPOINT = '127.0.0.1:13133';

export const schema: JsonSchema = object({
  endpoint: endpoint(DEFAULT_ENDPOINT),
  exporter_failure_threshold: duration('30s'),
  stream_high_water_percent: { ...integer(90, 1), maximum: 100 },
});
