import type { Extension, ExtensionContext, Factory } from '../../pipeline/component.ts';
import { schema, type HealthCheckConfig } from './config.ts';
import { HealthCheckExtension } from './health-check.ts';

export const factory: Factory<HealthCheckConfig, Extension, ExtensionContext> = {
  type: 'health_check',
  kind: 'extension',
  schema,
  create: (config, context) => new HealthCheckExtension(config, context),
};
