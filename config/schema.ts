// The shape of the config outside the components: service, pipelines, storage (ARCHITECTURE.md tables).
import type { JsonSchema } from '../pipeline/component.ts';
import { duration, endpointOrNone, integer, object, oneOf, path } from '../pipeline/schema.ts';

export interface StorageConfig {
  type: 'memory' | 'disk';
  directory: string;
  fsync: 'always' | 'interval' | 'never';
  /** Milliseconds. */
  fsync_interval: number;
  /** Bytes per pipeline; the default depends on the type. */
  max_bytes?: number;
}

export interface ServiceConfig {
  /** Worker processes sharing the listening sockets (cmd/workers/): a number, or `auto` for the CPUs the
   *  process may use (1 when a store exporter runs). Default 1: today's single process. */
  workers: number | 'auto';
  /** Milliseconds. */
  shutdown_timeout: number;
  /** The hard memory limit (MiB). */
  memory_limit_mib: number;
  /** How far below the hard limit the soft limit is (MiB); absent: a fifth of memory_limit_mib. */
  memory_spike_limit_mib?: number;
  /** Milliseconds without a request after which the daemon gives pooled memory back to the system (0: never). */
  memory_release_after_idle: number;
  /** Ids under `extensions:` to run (an extension not listed here is not started). */
  extensions: string[];
  telemetry: {
    logs: { level: 'debug' | 'info' | 'warn' | 'error' };
    /** `address`: `host:port` of the Prometheus endpoint (`GET /metrics`), or `none`. */
    metrics: { address: string };
  };
  pipelines: Record<string, { receivers: string[]; processors: string[]; exporters: string[] }>;
}

/** Where the daemon serves its metrics unless told otherwise: the OpenTelemetry Collector's port. */
export const DEFAULT_METRICS_ADDRESS = '127.0.0.1:8888';

export const DEFAULT_MAX_BYTES = { disk: 1024 * 1024 * 1024, memory: 128 * 1024 * 1024 } as const;

const idList: JsonSchema = { type: 'array', items: { type: 'string', minLength: 1 }, default: [] };

export const serviceSchema: JsonSchema = {
  ...object({
    // A number or `auto`: checked by the loader, which says both in one problem (config/load.ts workers).
    workers: { type: ['number', 'string'], default: 1 },
    shutdown_timeout: duration('10s'),
    memory_limit_mib: integer(512, 1),
    memory_spike_limit_mib: integer(0, 0),
    // 30 s: long enough that a sender pausing between bursts does not pay V8's regrowth every time
    // (pipeline/memory-limit.ts idleReleaseMs).
    memory_release_after_idle: duration('30s'),
    extensions: idList,
    telemetry: object({
      logs: object({ level: oneOf(['debug', 'info', 'warn', 'error'], 'info') }),
      metrics: object({ address: endpointOrNone(DEFAULT_METRICS_ADDRESS) }),
    }),
    pipelines: {
      type: 'object',
      additionalProperties: object({ receivers: idList, processors: idList, exporters: idList }),
    },
  }, ['pipelines']),
};

export const storageSchema: JsonSchema = object({
  type: oneOf(['memory', 'disk'], 'disk'),
  directory: path('./data'),
  fsync: oneOf(['always', 'interval', 'never'], 'always'),
  fsync_interval: duration('1s'),
  max_bytes: integer(0, 1),
});
// memory_spike_limit_mib has no static default: it depends on memory_limit_mib.
delete ((serviceSchema.properties as Record<string, JsonSchema>).memory_spike_limit_mib as Record<string, unknown>).default;

// max_bytes has no static default: it depends on the type.
delete ((storageSchema.properties as Record<string, JsonSchema>).max_bytes as Record<string, unknown>).default;

export const TOP_LEVEL_KEYS = ['extensions', 'receivers', 'processors', 'exporters', 'service', 'storage'] as const;


/**
 * Former processors whose work every receiver now does at its edge (docs/decisions/0600). A config may
 * still list them (earlier configs do); they take no settings and change nothing.
 */
export const RECEIVER_STEPS: readonly string[] = ['flatten', 'validate'];
