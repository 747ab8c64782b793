// The user's prices file: models the built-in table lacks (a fine-tune, a self-hosted model) or prices
// that differ from it (a negotiated rate). YAML or JSON (JSON is YAML), one shape:
//
//   models:
//     my-finetune: {input: 0.3, output: 1.2}      # USD per million tokens
//     "ft:gpt-4o-mini:*": {input: 0.3, output: 1.2}
//
// A name is matched whole and without regard to case; `*` stands for any run of characters and `?` for
// one. An exact name wins over a glob; among globs the first in the file wins.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { isJsonObject } from '../../model/json-object.ts';

/** Prices in USD per million tokens. */
export interface UserPrice {
  input: number;
  output: number;
}

/** The parsed file: exact names (lower-cased) and globs in file order. */
export interface UserPrices {
  exact: Map<string, UserPrice>;
  globs: Array<{ pattern: RegExp; price: UserPrice }>;
}

/** `*` any run of characters, `?` one; everything else literal; the whole name, any case. */
function globToRegExp(glob: string): RegExp {
  let source = '';
  for (const ch of glob) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'is');
}

function isPrice(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

/** The problem with one entry, or its price. */
function entry(name: string, e: unknown): UserPrice | string {
  const where = `models.${JSON.stringify(name)}`;
  if (!isJsonObject(e)) return `${where} must be an object {input, output}`;
  const extra = Object.keys(e).find((k) => k !== 'input' && k !== 'output');
  if (extra !== undefined) return `${where}.${extra} is not a known key (input, output)`;
  if (!isPrice(e.input)) return `${where}.input must be a number of USD per million tokens, 0 or more`;
  if (e.output !== undefined && !isPrice(e.output)) return `${where}.output must be a number of USD per million tokens, 0 or more`;
  return { input: e.input, output: (e.output as number | undefined) ?? 0 };
}

/** The prices of `file`, or the reason it cannot be used (naming the file and the entry). */
export function readPricesFile(file: string): UserPrices | string {
  let body: string;
  try {
    body = readFileSync(file, 'utf8');
  } catch (error) {
    return `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
  let value: unknown;
  try {
    value = parse(body);
  } catch (error) {
    return `${file} is not YAML or JSON: ${(error as Error).message.split('\n')[0]}`;
  }
  if (!isJsonObject(value)) return `${file} must hold an object with "models"`;
  const extra = Object.keys(value).find((k) => k !== 'models');
  if (extra !== undefined) return `${file}: "${extra}" is not a known key (models)`;
  const models = value.models;
  if (!isJsonObject(models)) return `${file}: models must be an object of model name or glob -> {input, output}`;
  const out: UserPrices = { exact: new Map(), globs: [] };
  for (const [name, v] of Object.entries(models)) {
    const price = entry(name, v);
    if (typeof price === 'string') return `${file}: ${price}`;
    if (name.includes('*') || name.includes('?')) out.globs.push({ pattern: globToRegExp(name), price });
    else out.exact.set(name.toLowerCase(), price);
  }
  return out;
}

/** The user's price for `model`, if the file names it. */
export function userPrice(prices: UserPrices, model: string): UserPrice | undefined {
  const exact = prices.exact.get(model.toLowerCase());
  if (exact !== undefined) return exact;
  for (const g of prices.globs) if (g.pattern.test(model)) return g.price;
  return undefined;
}
