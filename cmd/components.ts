// Every built-in component. A new component is a folder plus one line here.
import { Registry } from '../pipeline/registry.ts';
import { factory as fileExporter } from '../exporters/file/factory.ts';
import { factory as batch } from '../processors/batch/factory.ts';
import { factory as flatten } from '../processors/flatten/factory.ts';
import { factory as validate } from '../processors/validate/factory.ts';
import { factory as httpReceiver } from '../receivers/http/factory.ts';

export function builtinRegistry(): Registry {
  return new Registry()
    .register(httpReceiver)
    .register(flatten)
    .register(validate)
    .register(batch)
    .register(fileExporter);
}
