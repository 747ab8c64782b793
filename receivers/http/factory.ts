import type { Factory, Receiver, ReceiverContext } from '../../pipeline/component.ts';
import { schema, type HttpReceiverConfig } from './config.ts';
import { HttpReceiver } from './receiver.ts';
import { tlsProblems } from '../common/tls.ts';

export const factory: Factory<HttpReceiverConfig, Receiver, ReceiverContext> = {
  type: 'http',
  kind: 'receiver',
  schema,
  create: (config, context) => new HttpReceiver(config, context),
  check: (config) => [
    ...tlsProblems(config.tls, 'tls'),
    ...(config.auth !== undefined && config.api_keys.length > 0
      ? [{ key: 'api_keys', message: 'use auth (an api_keys extension) or api_keys, not both' }] : []),
    ...(config.read !== undefined && config.read.default_limit > config.read.max_limit
      ? [{ key: 'read.default_limit', message: `must not exceed read.max_limit (${config.read.max_limit})` }] : []),
  ],
};
