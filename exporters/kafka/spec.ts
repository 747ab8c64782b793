// What the config loader needs of this component (cmd/components.ts): the implementation is imported only
// when a config uses it (factory.ts).
import type { ComponentSpecOf } from '../../pipeline/registry.ts';
import { checkKafkaConfig, schema, type KafkaConfig } from './config.ts';

export const spec: ComponentSpecOf<KafkaConfig> = {
  type: 'kafka',
  kind: 'exporter',
  schema,
  check: checkKafkaConfig,
};
