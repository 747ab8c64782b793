// `processors.cost` settings: where the user's own prices are, which spans get a cost, and how many
// distinct models the processor keeps prices for.
import type { JsonSchema } from '../../pipeline/component.ts';
import { integer, object, path } from '../../pipeline/schema.ts';
import { readPricesFile } from './prices-file.ts';
import { SPAN_TYPES } from '../../model/span.ts';

export interface CostConfig {
  /** A YAML or JSON file of model names or globs with their prices; these win over the built-in table. */
  prices_file?: string;
  /** The span types (`ag.type.span`) that get a cost. */
  span_types: string[];
  /** Distinct (provider, model) pairs whose prices are kept once looked up; past it, the cache restarts. */
  max_cached_models: number;
}

export const DEFAULT_SPAN_TYPES = ['chat', 'completion', 'embedding'];
export const DEFAULT_MAX_CACHED_MODELS = 1024;

export const schema: JsonSchema = object({
  prices_file: path(),
  span_types: { type: 'array', items: { type: 'string', enum: SPAN_TYPES }, uniqueItems: true, default: DEFAULT_SPAN_TYPES },
  max_cached_models: integer(DEFAULT_MAX_CACHED_MODELS, 1),
});

/** The prices file is read here too, so `tracehop validate` names what is wrong in it. */
export function checkCostConfig(config: CostConfig): Array<{ key: string; message: string }> {
  if (config.prices_file === undefined) return [];
  const read = readPricesFile(config.prices_file);
  return typeof read === 'string' ? [{ key: 'prices_file', message: read }] : [];
}
