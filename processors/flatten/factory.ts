import type { Factory, SyncProcessor } from '../../pipeline/component.ts';
import { schema, type FlattenConfig } from './config.ts';
import { FlattenProcessor } from './flatten.ts';

export const factory: Factory<FlattenConfig, SyncProcessor> = {
  type: 'flatten',
  kind: 'processor',
  schema,
  create: () => new FlattenProcessor(),
};
