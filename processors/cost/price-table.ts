// Where a model's price comes from: the user's file first, then the table of `@pydantic/genai-prices`
// (the version in package-lock.json is the table in use). Looking a model up in that table costs tens of
// microseconds (its matching rules are walked each time), too much for every span, so each processor keeps
// what it found per (provider, model), misses included. A flat per-token price is then multiplied here;
// a price that depends on the prompt's size (tiers) or on the time of the call is left to the library's
// own calculation, which is only as slow as that lookup.
import type { PriceLibrary } from './library.ts';
import { userPrice, type UserPrices } from './prices-file.ts';

/** Token counts of one span. */
export interface Tokens {
  prompt: number;
  completion: number;
}

/** What one span's tokens cost, in USD. */
export interface Costs {
  prompt: number;
  completion: number;
}

/** A resolved model: its flat prices in USD per million tokens, or the library's calculation. */
type Price =
  | { kind: 'flat'; input: number; output: number }
  | { kind: 'library'; providerId: string; modelId: string };

/** A cached lookup that found nothing (the model is unknown to both tables). */
const UNKNOWN = null;

function isFlat(v: unknown): v is number | undefined {
  return v === undefined || typeof v === 'number';
}

export class PriceTable {
  private readonly library: PriceLibrary;
  private readonly user: UserPrices | undefined;
  private readonly maxEntries: number;
  /** Provider ('' for none) -> model name as the span gave it -> what it resolved to. Two levels, so a
   *  lookup hashes the span's own strings rather than building a joined key per span. */
  private readonly cache = new Map<string, Map<string, Price | typeof UNKNOWN>>();
  private entries = 0;

  constructor(library: PriceLibrary, user: UserPrices | undefined, maxEntries: number) {
    this.library = library;
    this.user = user;
    this.maxEntries = maxEntries;
  }

  /** The costs of `tokens` for `model` (as the span names it) for a call at `startNs` (Unix ns), or undefined for an unknown model. */
  costs(provider: string | undefined, model: string, tokens: Tokens, startNs: bigint): Costs | undefined {
    let models = this.cache.get(provider ?? '');
    let price = models?.get(model);
    if (price === undefined) {
      // A full cache starts again rather than growing with every model name clients invent.
      if (this.entries >= this.maxEntries) {
        this.cache.clear();
        this.entries = 0;
        models = undefined;
      }
      if (models === undefined) this.cache.set(provider ?? '', (models = new Map()));
      price = this.resolve(provider, model);
      models.set(model, price);
      this.entries++;
    }
    if (price === UNKNOWN) return undefined;
    if (price.kind === 'flat') {
      return { prompt: (tokens.prompt * price.input) / 1e6, completion: (tokens.completion * price.output) / 1e6 };
    }
    const r = this.library.calcPrice({ input_tokens: tokens.prompt, output_tokens: tokens.completion }, price.modelId, { providerId: price.providerId, timestamp: new Date(Number(startNs / 1_000_000n)) });
    return r === null ? undefined : { prompt: r.input_price, completion: r.output_price };
  }

  private resolve(provider: string | undefined, model: string): Price | typeof UNKNOWN {
    const own = this.user === undefined ? undefined : userPrice(this.user, model);
    if (own !== undefined) return { kind: 'flat', input: own.input, output: own.output };
    // The span's provider names vary (`openai`, `openai.chat`, `OpenAI`); the library matches them to its
    // providers. One it does not know is no reason to give up: the model name alone often tells.
    const { calcPrice, findProvider } = this.library;
    const known = provider === undefined ? undefined : findProvider({ providerId: provider });
    const found = calcPrice({ input_tokens: 0, output_tokens: 0 }, model, known === undefined ? undefined : { providerId: known.id })
      ?? (known === undefined ? null : calcPrice({ input_tokens: 0, output_tokens: 0 }, model));
    if (found === null) return UNKNOWN;
    const prices = found.model.prices;
    if (!Array.isArray(prices) && isFlat(prices.input_mtok) && isFlat(prices.output_mtok)) {
      return { kind: 'flat', input: prices.input_mtok ?? 0, output: prices.output_mtok ?? 0 };
    }
    return { kind: 'library', providerId: found.provider.id, modelId: model };
  }
}
