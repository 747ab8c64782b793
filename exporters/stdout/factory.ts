import type { Exporter, Factory } from '../../pipeline/component.ts';
import type { StdoutConfig } from './config.ts';
import { spec } from './spec.ts';
import { StdoutExporter } from './stdout-exporter.ts';

export const factory: Factory<StdoutConfig, Exporter> = {
  ...spec,
  create: (config, context) =>
    new StdoutExporter({ id: context.id, verbosity: config.verbosity, attributesShape: config.attributes_shape }),
};
