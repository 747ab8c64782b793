import type { Factory, SyncProcessor } from '../../pipeline/component.ts';
import { checkRedactConfig, schema, type RedactConfig } from './config.ts';
import { RedactProcessor } from './processor.ts';

export const factory: Factory<RedactConfig, SyncProcessor> = {
  type: 'redact',
  kind: 'processor',
  schema,
  create: (config) => new RedactProcessor(config),
  check: checkRedactConfig,
};
