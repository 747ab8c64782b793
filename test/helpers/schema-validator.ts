// One component schema's validator on its own, compiled as a config load compiles it (config/ajv.ts):
// defaults filled in, durations and endpoints checked.
import type { ValidateFunction } from 'ajv';
import { SchemaValidators } from '../../config/ajv.ts';
import type { JsonSchema } from '../../pipeline/component.ts';

export function validator(schema: JsonSchema): ValidateFunction {
  return new SchemaValidators().validator(schema);
}
