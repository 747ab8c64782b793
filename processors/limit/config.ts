// `processors.limit` settings: how large one attribute value may be, and what happens to inline media.
import type { JsonSchema } from '../../pipeline/component.ts';
import { integer, object, oneOf } from '../../pipeline/schema.ts';

export type MediaMode = 'placeholder' | 'keep';

export interface LimitConfig {
  /** A string value longer than this many UTF-8 bytes is cut there, with a marker; 0: no limit. */
  max_value_bytes: number;
  /** Inline base64 media (data: URIs, base64 image and audio fields): replaced by a description, or kept. */
  media: MediaMode;
}

export const DEFAULT_MAX_VALUE_BYTES = 256 * 1024;

export const schema: JsonSchema = object({
  max_value_bytes: integer(DEFAULT_MAX_VALUE_BYTES, 0),
  media: oneOf(['placeholder', 'keep'], 'placeholder'),
});

/** The marker a cut value ends with must fit in the limit (so a second pass leaves the value alone). */
export const MIN_MAX_VALUE_BYTES = 64;

export function checkLimitConfig(config: LimitConfig): Array<{ key: string; message: string }> {
  if (config.max_value_bytes !== 0 && config.max_value_bytes < MIN_MAX_VALUE_BYTES) {
    return [{ key: 'max_value_bytes', message: `must be 0 (no limit) or at least ${MIN_MAX_VALUE_BYTES}` }];
  }
  return [];
}
