// Building blocks for component config schemas. The config loader (config/) knows the `x-duration`
// keyword: it accepts `200ms`, `5s`, `1m`, `1h` (or the number 0) and replaces the value by milliseconds,
// so a loaded config holds plain numbers.
import type { JsonSchema } from './component.ts';

/** A duration with a default (`'200ms'`); loaded as milliseconds. */
export function duration(defaultValue: string, description?: string): JsonSchema {
  return { 'x-duration': true, default: defaultValue, ...(description ? { description } : {}) };
}

/** `host:port` listen address, the port from 0 (any free port) to 65535 (the loader's `x-endpoint`). */
export function endpoint(defaultValue: string): JsonSchema {
  return { type: 'string', 'x-endpoint': true, default: defaultValue };
}

/** A `host:port` listen address or `none` (the listener is off): the loader's `x-endpoint-or-none`. */
export function endpointOrNone(defaultValue: string): JsonSchema {
  return { type: 'string', 'x-endpoint-or-none': true, default: defaultValue };
}

/** The problem with a value that is `none` or a `host:port` listen address, or undefined. */
export function endpointOrNoneProblem(value: string): string | undefined {
  if (value === 'none') return undefined;
  const problem = endpointProblem(value);
  return problem && `${problem}; or none to turn it off`;
}

/** A file or directory path (the loader's `x-path`: not empty, no NUL character). */
export function path(defaultValue?: string): JsonSchema {
  return { type: 'string', 'x-path': true, ...(defaultValue === undefined ? {} : { default: defaultValue }) };
}

/** The problem with a `host:port` listen address, or undefined when it is one. */
export function endpointProblem(value: string): string | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s]*):([0-9]{1,5})$/.exec(value);
  if (!m) return `must be host:port, such as 127.0.0.1:4319 (got ${JSON.stringify(value)})`;
  if (Number(m[2]) > 65535) return `port ${m[2]} is out of range: use 0 to 65535 (0 picks a free port)`;
  return undefined;
}

/** The problem with a path, or undefined when it is usable as one. */
export function pathProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.includes('\0')) return 'must not contain a NUL character';
  return undefined;
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
    path: path(),
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
