import type { Exporter, Factory } from '../../pipeline/component.ts';
import { schema, type StoreConfig } from './config.ts';
import { StoreExporter } from './store-exporter.ts';

export const factory: Factory<StoreConfig, Exporter> = {
  type: 'store',
  kind: 'exporter',
  schema,
  create: (config, context) =>
    new StoreExporter({
      path: config.path,
      maxBytes: config.max_bytes,
      maxAge: config.max_age,
      pruneInterval: config.prune_interval,
      logger: context.logger,
    }),
};
