import type { Batcher, Factory } from '../../pipeline/component.ts';
import { SizeOrTimeBatcher } from './batcher.ts';
import type { BatchConfig } from './config.ts';
import { spec } from './spec.ts';

export const factory: Factory<BatchConfig, Batcher> = {
  ...spec,
  create: (config) => new SizeOrTimeBatcher(config),
};
