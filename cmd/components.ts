// Every built-in component. A new component is a folder plus one line here.
import { Registry } from '../pipeline/registry.ts';
import { factory as fileExporter } from '../exporters/file/factory.ts';
import { factory as storeExporter } from '../exporters/store/factory.ts';
import { factory as kafkaExporter } from '../exporters/kafka/factory.ts';
import { factory as otlpExporter } from '../exporters/otlp/factory.ts';
import { factory as stdoutExporter } from '../exporters/stdout/factory.ts';
import { factory as apiKeys } from '../extensions/api_keys/factory.ts';
import { factory as healthCheck } from '../extensions/health_check/factory.ts';
import { factory as batch } from '../processors/batch/factory.ts';
import { factory as namespace } from '../processors/namespace/factory.ts';
import { factory as limit } from '../processors/limit/factory.ts';
import { factory as cost } from '../processors/cost/factory.ts';
import { factory as redact } from '../processors/redact/factory.ts';
import { factory as httpReceiver } from '../receivers/http/factory.ts';
import { factory as otlpReceiver } from '../receivers/otlp/factory.ts';

export function builtinRegistry(): Registry {
  return new Registry()
    .register(apiKeys)
    .register(healthCheck)
    .register(httpReceiver)
    .register(otlpReceiver)
    .register(namespace)
    .register(cost)
    .register(redact)
    .register(limit)
    .register(batch)
    .register(fileExporter)
    .register(kafkaExporter)
    .register(otlpExporter)
    .register(stdoutExporter)
    .register(storeExporter);
}
