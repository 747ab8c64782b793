import type { Exporter, Factory } from '../../pipeline/component.ts';
import { lazyExporter } from '../../pipeline/lazy-exporter.ts';
import type { KafkaConfig } from './config.ts';
import { spec } from './spec.ts';

export const factory: Factory<KafkaConfig, Exporter> = {
  ...spec,
  // The client library is loaded at start, only when a kafka exporter is configured.
  create: (config, context) =>
    lazyExporter(async () => new (await import('./kafka-exporter.ts')).KafkaExporter(config, context)),
};
