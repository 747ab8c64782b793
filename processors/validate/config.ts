// `processors.validate` has no settings yet; listing it is allowed (it runs on every pipeline anyway).
import type { JsonSchema } from '../../pipeline/component.ts';
import { object } from '../../pipeline/schema.ts';

export type ValidateConfig = Record<string, never>;

export const schema: JsonSchema = object({});
