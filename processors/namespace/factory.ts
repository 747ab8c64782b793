import type { Factory, SyncProcessor } from '../../pipeline/component.ts';
import type { NamespaceConfig } from './config.ts';
import { spec } from './spec.ts';
import { NamespaceProcessor } from './processor.ts';

export const factory: Factory<NamespaceConfig, SyncProcessor> = {
  ...spec,
  create: (config) => new NamespaceProcessor(config),
};
