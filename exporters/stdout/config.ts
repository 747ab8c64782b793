// Config of the `stdout` exporter (span-record.md "Config of the file and stdout exporters").
import type { DeliveryConfig, JsonSchema } from '../../pipeline/component.ts';
import { deliveryProperties, object, oneOf } from '../../pipeline/schema.ts';

export interface StdoutConfig extends DeliveryConfig {
  /** `basic`: one summary line per batch; `detailed`: one JSON record per line. */
  verbosity: 'basic' | 'detailed';
  /** Shape of span `attributes` at `detailed`. */
  attributes_shape: 'flat' | 'nested';
  timeout: number;
}

export const schema: JsonSchema = object({
  verbosity: oneOf(['basic', 'detailed'], 'basic'),
  attributes_shape: oneOf(['flat', 'nested'], 'flat'),
  // Accepted like every exporter's delivery keys, so a config can switch an exporter's type freely.
  ...deliveryProperties,
});
