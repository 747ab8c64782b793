import type { Exporter, Factory } from '../../pipeline/component.ts';
import { checkKafkaConfig, schema, type KafkaConfig } from './config.ts';
import { KafkaExporter } from './kafka-exporter.ts';

export const factory: Factory<KafkaConfig, Exporter> = {
  type: 'kafka',
  kind: 'exporter',
  schema,
  create: (config, context) => new KafkaExporter(config, context),
  check: checkKafkaConfig,
};
