// `extensions.api_keys`: the keys a receiver accepts, each with the project it belongs to.
import type { JsonSchema } from '../../pipeline/component.ts';
import { duration, object, path } from '../../pipeline/schema.ts';

import type { KeyEntry } from '../../pipeline/auth.ts';

export interface ApiKeysConfig {
  keys: KeyEntry[];
  /** A YAML or JSON file holding a list of entries like `keys`, read again when it changes. */
  file?: string;
  /** Milliseconds between checks of `file` for a change. */
  reload_interval: number;
}

export const keyEntrySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    key: { type: 'string', minLength: 1 },
    key_sha256: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' },
    project: { type: 'string', minLength: 1 },
  },
};

export const schema: JsonSchema = object({
  keys: { type: 'array', items: keyEntrySchema, default: [] },
  file: path(),
  reload_interval: duration('10s'),
});
