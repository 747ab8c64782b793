import type { Factory, SyncProcessor } from '../../pipeline/component.ts';
import type { LimitConfig } from './config.ts';
import { spec } from './spec.ts';
import { LimitProcessor } from './processor.ts';

export const factory: Factory<LimitConfig, SyncProcessor> = {
  ...spec,
  create: (config) => new LimitProcessor(config),
};
