import type { Factory, SyncProcessor } from '../../pipeline/component.ts';
import { schema, type NamespaceConfig } from './config.ts';
import { NamespaceProcessor } from './processor.ts';

export const factory: Factory<NamespaceConfig, SyncProcessor> = {
  type: 'namespace',
  kind: 'processor',
  schema,
  create: (config) => new NamespaceProcessor(config),
};
