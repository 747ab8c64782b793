// Config of the `file` exporter (span-record.md "Config of the file and stdout exporters").
import type { DeliveryConfig, JsonSchema } from '../../pipeline/component.ts';
import { deliveryProperties, duration, integer, object, oneOf, path } from '../../pipeline/schema.ts';

export interface FileConfig extends DeliveryConfig {
  /** Relative to the working directory; missing parent directories are created. */
  path: string;
  attributes_shape: 'flat' | 'nested';
  /** Milliseconds: buffered lines are written at least this often (span-record.md). Always met: each
   *  batch is written when the pipeline hands it over (file-exporter.ts says why there is no timer). */
  flush_interval: number;
  rotation: {
    /** Mebibytes (1048576 bytes, as the Collector's file exporter counts them); 0: no rotation. */
    max_megabytes: number;
    /** Renamed files kept, oldest deleted first; 0 keeps all. */
    max_backups: number;
  };
  /** Milliseconds, per export call (applied by the pipeline). */
  timeout: number;
}

export const schema: JsonSchema = object(
  {
    path: path(),
    attributes_shape: oneOf(['flat', 'nested'], 'flat'),
    flush_interval: duration('1s'),
    rotation: object({
      // A number rather than an integer, so a small test file (or a tiny device) can rotate below 1 MiB.
      max_megabytes: { type: 'number', minimum: 0, default: 100 },
      max_backups: integer(100, 0),
    }),
    ...deliveryProperties,
  },
  ['path'],
);

export const BYTES_PER_MEGABYTE = 1024 * 1024;
