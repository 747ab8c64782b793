import type { Extension, ExtensionContext, Factory } from '../../pipeline/component.ts';
import type { HealthCheckConfig } from './config.ts';
import { spec } from './spec.ts';
import { HealthCheckExtension } from './health-check.ts';

export const factory: Factory<HealthCheckConfig, Extension, ExtensionContext> = {
  ...spec,
  create: (config, context) => new HealthCheckExtension(config, context),
};
