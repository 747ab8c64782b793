// Every built-in component. A new component is a folder plus one entry here. Each is registered by its
// spec (schema and checks, what `tracehop validate` needs); its factory module, with the implementation
// and the libraries behind it, is imported by Registry.load only when a config uses the component, so
// that a daemon's memory holds only what its config runs. The import() specifiers stay string literals:
// the single-executable bundle (sea/build.ts) follows them.
import { Registry, type AnyFactory, type ComponentSpec } from '../pipeline/registry.ts';
import { spec as fileExporter } from '../exporters/file/spec.ts';
import { spec as storeExporter } from '../exporters/store/spec.ts';
import { spec as kafkaExporter } from '../exporters/kafka/spec.ts';
import { spec as otlpExporter } from '../exporters/otlp/spec.ts';
import { spec as stdoutExporter } from '../exporters/stdout/spec.ts';
import { spec as apiKeys } from '../extensions/api_keys/spec.ts';
import { spec as healthCheck } from '../extensions/health_check/spec.ts';
import { spec as batch } from '../processors/batch/spec.ts';
import { spec as namespace } from '../processors/namespace/spec.ts';
import { spec as limit } from '../processors/limit/spec.ts';
import { spec as cost } from '../processors/cost/spec.ts';
import { spec as redact } from '../processors/redact/spec.ts';
import { spec as httpReceiver } from '../receivers/http/spec.ts';
import { spec as otlpReceiver } from '../receivers/otlp/spec.ts';

type FactoryModule = Promise<{ factory: AnyFactory }>;

/** The built-in components: each spec with the import of its factory module. */
export const BUILTIN_COMPONENTS: ReadonlyArray<[ComponentSpec, () => FactoryModule]> = [
  [apiKeys, () => import('../extensions/api_keys/factory.ts')],
  [healthCheck, () => import('../extensions/health_check/factory.ts')],
  [httpReceiver, () => import('../receivers/http/factory.ts')],
  [otlpReceiver, () => import('../receivers/otlp/factory.ts')],
  [namespace, () => import('../processors/namespace/factory.ts')],
  [cost, () => import('../processors/cost/factory.ts')],
  [redact, () => import('../processors/redact/factory.ts')],
  [limit, () => import('../processors/limit/factory.ts')],
  [batch, () => import('../processors/batch/factory.ts')],
  [fileExporter, () => import('../exporters/file/factory.ts')],
  [kafkaExporter, () => import('../exporters/kafka/factory.ts')],
  [otlpExporter, () => import('../exporters/otlp/factory.ts')],
  [stdoutExporter, () => import('../exporters/stdout/factory.ts')],
  [storeExporter, () => import('../exporters/store/factory.ts')],
];

export function builtinRegistry(): Registry {
  const registry = new Registry();
  for (const [spec, load] of BUILTIN_COMPONENTS) registry.registerLazy({ ...spec, load: async () => (await load()).factory });
  return registry;
}
