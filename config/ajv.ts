// The ajv instance for every config schema: defaults filled in, every error reported, the `x-duration`
// keyword that turns `200ms` / `5s` into milliseconds in place, and `x-endpoint` / `x-path` for listen
// addresses and file paths (a port beyond 65535 or a NUL in a path fails `validate`, not the start).
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { JsonSchema } from '../pipeline/component.ts';
import { endpointOrNoneProblem, endpointProblem, parseDuration, pathProblem } from '../pipeline/schema.ts';

interface DataContext {
  parentData: Record<string, unknown>;
  parentDataProperty: string | number;
}

function createAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, allowUnionTypes: true });
  ajv.addKeyword({
    keyword: 'x-duration',
    schemaType: 'boolean',
    modifying: true,
    errors: true,
    validate: function durationKeyword(
      this: unknown,
      _schema: boolean,
      data: unknown,
      _parent?: unknown,
      ctx?: DataContext,
    ): boolean {
      const ms = parseDuration(data);
      if (ms === undefined) {
        (durationKeyword as unknown as { errors: Partial<ErrorObject>[] }).errors = [
          { keyword: 'x-duration', message: `must be a duration such as 200ms, 5s or 1m (got ${JSON.stringify(data)})`, params: {} },
        ];
        return false;
      }
      if (ctx && typeof data !== 'number') ctx.parentData[ctx.parentDataProperty] = ms;
      return true;
    },
  });
  const stringKeywords = [['x-endpoint', endpointProblem], ['x-endpoint-or-none', endpointOrNoneProblem], ['x-path', pathProblem]] as const;
  for (const [keyword, problemOf] of stringKeywords) {
    ajv.addKeyword({
      keyword,
      schemaType: 'boolean',
      type: 'string',
      errors: true,
      validate: function stringKeyword(_schema: boolean, data: string): boolean {
        const problem = problemOf(data);
        if (problem === undefined) return true;
        (stringKeyword as unknown as { errors: Partial<ErrorObject>[] }).errors = [{ keyword, message: problem, params: {} }];
        return false;
      },
    });
  }
  return ajv;
}

/**
 * The validators of one config load. An instance, not a module-level one: ajv keeps every schema it
 * compiled, and the daemon needs them only while it loads a config, so they are let go afterwards
 * (about 1.5 MiB of heap and their generated code for a small config).
 */
export class SchemaValidators {
  readonly #ajv = createAjv();
  readonly #compiled = new WeakMap<JsonSchema, ValidateFunction>();

  validator(schema: JsonSchema): ValidateFunction {
    let fn = this.#compiled.get(schema);
    if (!fn) {
      // A component schema carries `default: {}` for when it is nested; at the root ajv's strict mode
      // would flag it as ignored.
      const { default: _ignored, ...root } = schema;
      fn = this.#ajv.compile(root);
      this.#compiled.set(schema, fn);
    }
    return fn;
  }
}

/** An ajv error as (path segments below the validated value, message). */
export function describeError(error: ErrorObject): { segments: string[]; message: string } {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return { segments: [...segments, String(params.additionalProperty)], message: 'unknown key' };
    case 'required':
      return { segments: [...segments, String(params.missingProperty)], message: 'is required' };
    case 'enum':
      return { segments, message: `must be one of: ${(params.allowedValues as unknown[]).join(', ')}` };
    default:
      return { segments, message: error.message ?? 'is invalid' };
  }
}
