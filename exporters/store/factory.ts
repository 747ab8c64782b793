import type { Exporter, Factory } from '../../pipeline/component.ts';
import type { StoreConfig } from './config.ts';
import { spec } from './spec.ts';
import { StoreExporter } from './store-exporter.ts';

export const factory: Factory<StoreConfig, Exporter> = {
  ...spec,
  create: (config, context) =>
    new StoreExporter({
      path: config.path,
      maxBytes: config.max_bytes,
      maxAge: config.max_age,
      pruneInterval: config.prune_interval,
      logger: context.logger,
    }),
};
