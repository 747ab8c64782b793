import type { Exporter, Factory } from '../../pipeline/component.ts';
import type { OtlpExporterConfig } from './config.ts';
import { spec } from './spec.ts';
import { OtlpExporter } from './otlp-exporter.ts';

export const factory: Factory<OtlpExporterConfig, Exporter> = {
  ...spec,
  create: (config, context) => new OtlpExporter(config, context.logger),
};
