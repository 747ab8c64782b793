import type { Factory, SyncProcessor } from '../../pipeline/component.ts';
import { checkLimitConfig, schema, type LimitConfig } from './config.ts';
import { LimitProcessor } from './processor.ts';

export const factory: Factory<LimitConfig, SyncProcessor> = {
  type: 'limit',
  kind: 'processor',
  schema,
  create: (config) => new LimitProcessor(config),
  check: checkLimitConfig,
};
