import type { Exporter, Factory } from '../../pipeline/component.ts';
import { schema, type StdoutConfig } from './config.ts';
import { StdoutExporter } from './stdout-exporter.ts';

export const factory: Factory<StdoutConfig, Exporter> = {
  type: 'stdout',
  kind: 'exporter',
  schema,
  create: (config, context) =>
    new StdoutExporter({ id: context.id, verbosity: config.verbosity, attributesShape: config.attributes_shape }),
};
