import type { Factory, SyncProcessor } from '../../pipeline/component.ts';
import { schema, type ValidateConfig } from './config.ts';
import { ValidateProcessor } from './validate.ts';

export const factory: Factory<ValidateConfig, SyncProcessor> = {
  type: 'validate',
  kind: 'processor',
  schema,
  create: () => new ValidateProcessor(),
};
