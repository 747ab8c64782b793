import type { Authenticator, Factory } from '../../pipeline/component.ts';
import { ApiKeysAuthenticator } from './api-keys.ts';
import { schema, type ApiKeysConfig } from './config.ts';

export const factory: Factory<ApiKeysConfig, Authenticator> = {
  type: 'api_keys',
  kind: 'extension',
  schema,
  create: (config, context) => new ApiKeysAuthenticator(config, context.logger),
  check: (config) => {
    const problems: Array<{ key: string; message: string }> = [];
    if (config.keys.length === 0 && config.file === undefined) problems.push({ key: 'keys', message: 'list at least one key, or a file' });
    config.keys.forEach((entry, i) => {
      if ((entry.key === undefined) === (entry.key_sha256 === undefined)) problems.push({ key: `keys.${i}`, message: 'give exactly one of key and key_sha256' });
    });
    return problems;
  },
};
