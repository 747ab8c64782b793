import type { Batcher, Factory } from '../../pipeline/component.ts';
import { SizeOrTimeBatcher } from './batcher.ts';
import { checkBatchConfig, schema, type BatchConfig } from './config.ts';

export const factory: Factory<BatchConfig, Batcher> = {
  type: 'batch',
  kind: 'processor',
  schema,
  create: (config) => new SizeOrTimeBatcher(config),
  check: checkBatchConfig,
};
