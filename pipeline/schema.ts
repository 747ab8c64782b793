// Building blocks for component config schemas. The config loader (config/) knows the `x-duration`
// keyword: it accepts `200ms`, `5s`, `1m`, `1h` (or the number 0) and replaces the value by milliseconds,
// so a loaded config holds plain numbers.
import type { JsonSchema } from './component.ts';

/** A duration with a default (`'200ms'`); loaded as milliseconds. */
export function duration(defaultValue: string, description?: string): JsonSchema {
  return { 'x-duration': true, default: defaultValue, ...(description ? { description } : {}) };
}

/** `host:port` listen address. */
export function endpoint(defaultValue: string): JsonSchema {
  return { type: 'string', pattern: '^(\\[[0-9a-fA-F:.]+\\]|[^:\\s]*):[0-9]{1,5}$', default: defaultValue };
}

export function integer(defaultValue: number, minimum = 0): JsonSchema {
  return { type: 'integer', minimum, default: defaultValue };
}

export function oneOf(values: readonly string[], defaultValue: string): JsonSchema {
  return { type: 'string', enum: [...values], default: defaultValue };
}

/** An object schema whose unknown keys are errors, with every property optional unless listed. */
export function object(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: 'object', additionalProperties: false, properties, required, default: {} };
}

/** Retry and dead-letter settings shared by exporters (ARCHITECTURE.md, exporter defaults). The
 *  dead-letter path defaults to `./data/dead-letters/<exporter id with / as _>.jsonl`, filled in by the
 *  pipeline because it depends on the id. */
export const deliveryProperties: Record<string, JsonSchema> = {
  timeout: duration('10s'),
  retry: object({
    initial_interval: duration('1s'),
    max_interval: duration('30s'),
    multiplier: { type: 'number', minimum: 1, default: 1.5 },
  }),
  dead_letter: object({
    path: { type: 'string', minLength: 1 },
    max_attempts: integer(10, 1),
  }),
};

/** Parses `200ms`, `5s`, `1.5s`, `2m`, `1h`, `0` into milliseconds; undefined when it is not a duration. */
export function parseDuration(value: unknown): number | undefined {
  if (value === 0 || value === '0') return 0;
  if (typeof value !== 'string') return undefined;
  const m = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)$/.exec(value.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  return n * unit[m[2]];
}
