// What the config loader needs of this component (cmd/components.ts): the implementation is imported only
// when a config uses it (factory.ts).
import type { ComponentSpecOf } from '../../pipeline/registry.ts';
import { schema, tracesUrl, type OtlpExporterConfig } from './config.ts';

export const spec: ComponentSpecOf<OtlpExporterConfig> = {
  type: 'otlp',
  kind: 'exporter',
  schema,
  check: (config) =>
    tracesUrl(config.endpoint) === undefined
      ? [{ key: 'endpoint', message: `must be an http:// or https:// URL, got ${JSON.stringify(config.endpoint)}` }]
      : [],
};
