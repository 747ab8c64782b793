// Config of the `store` exporter (read-api.md §10): an embedded SQLite file the http receiver reads from.
import type { DeliveryConfig, JsonSchema } from '../../pipeline/component.ts';
import { deliveryProperties, duration, integer, object, path } from '../../pipeline/schema.ts';

export interface StoreConfig extends DeliveryConfig {
  /** Relative to the working directory; missing parent directories are created. */
  path: string;
  /** Bytes of live pages in the main file (§9.3); the oldest-written traces are pruned above it. */
  max_bytes: number;
  /** Milliseconds since a trace's last write after which it is pruned; 0: no age bound. */
  max_age: number;
  /** Milliseconds between two age checks. */
  prune_interval: number;
  /** Milliseconds, per export call (applied by the pipeline). */
  timeout: number;
}

/** The smallest `max_bytes`: below it a few traces would not fit next to SQLite's own pages. */
export const MIN_MAX_BYTES = 1_048_576;

export const schema: JsonSchema = object({
  path: path('./data/store.db'),
  max_bytes: integer(1_073_741_824, MIN_MAX_BYTES),
  max_age: duration('168h'),
  prune_interval: duration('1m'),
  ...deliveryProperties,
});
