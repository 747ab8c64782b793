// What the config loader needs of this component (cmd/components.ts): the implementation is imported only
// when a config uses it (factory.ts).
import type { ComponentSpecOf } from '../../pipeline/registry.ts';
import { schema, type ApiKeysConfig } from './config.ts';

export const spec: ComponentSpecOf<ApiKeysConfig> = {
  type: 'api_keys',
  kind: 'extension',
  schema,
  check: (config) => {
    const problems: Array<{ key: string; message: string }> = [];
    if (config.keys.length === 0 && config.file === undefined) problems.push({ key: 'keys', message: 'list at least one key, or a file' });
    config.keys.forEach((entry, i) => {
      if ((entry.key === undefined) === (entry.key_sha256 === undefined)) problems.push({ key: `keys.${i}`, message: 'give exactly one of key and key_sha256' });
    });
    return problems;
  },
};
