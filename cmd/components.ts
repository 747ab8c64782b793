// Every built-in component. A new component is a folder plus one line here.
import { Registry } from '../pipeline/registry.ts';
import { factory as batch } from '../processors/batch/factory.ts';
import { factory as flatten } from '../processors/flatten/factory.ts';

export function builtinRegistry(): Registry {
  return new Registry()
    .register(flatten)
    .register(batch);
}
