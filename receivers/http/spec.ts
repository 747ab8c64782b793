// What the config loader needs of this component (cmd/components.ts): the implementation is imported only
// when a config uses it (factory.ts).
import type { ComponentSpecOf } from '../../pipeline/registry.ts';
import { schema, type HttpReceiverConfig } from './config.ts';
import { tlsProblems } from '../common/tls.ts';

export const spec: ComponentSpecOf<HttpReceiverConfig> = {
  type: 'http',
  kind: 'receiver',
  schema,
  check: (config) => [
    ...tlsProblems(config.tls, 'tls'),
    ...(config.auth !== undefined && config.api_keys.length > 0
      ? [{ key: 'api_keys', message: 'use auth (an api_keys extension) or api_keys, not both' }] : []),
    ...(config.read !== undefined && config.read.default_limit > config.read.max_limit
      ? [{ key: 'read.default_limit', message: `must not exceed read.max_limit (${config.read.max_limit})` }] : []),
  ],
};
