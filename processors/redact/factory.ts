import type { Factory, SyncProcessor } from '../../pipeline/component.ts';
import type { RedactConfig } from './config.ts';
import { spec } from './spec.ts';
import { RedactProcessor } from './processor.ts';

export const factory: Factory<RedactConfig, SyncProcessor> = {
  ...spec,
  create: (config) => new RedactProcessor(config),
};
