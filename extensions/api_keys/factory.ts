import type { Authenticator, Factory } from '../../pipeline/component.ts';
import { ApiKeysAuthenticator } from './api-keys.ts';
import type { ApiKeysConfig } from './config.ts';
import { spec } from './spec.ts';

export const factory: Factory<ApiKeysConfig, Authenticator> = {
  ...spec,
  create: (config, context) => new ApiKeysAuthenticator(config, context.logger),
};
