import type { Exporter, Factory } from '../../pipeline/component.ts';
import { schema, tracesUrl, type OtlpExporterConfig } from './config.ts';
import { OtlpExporter } from './otlp-exporter.ts';

export const factory: Factory<OtlpExporterConfig, Exporter> = {
  type: 'otlp',
  kind: 'exporter',
  schema,
  check: (config) =>
    tracesUrl(config.endpoint) === undefined
      ? [{ key: 'endpoint', message: `must be an http:// or https:// URL, got ${JSON.stringify(config.endpoint)}` }]
      : [],
  create: (config, context) => new OtlpExporter(config, context.logger),
};
