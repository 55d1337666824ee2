// Cost of a step from its tokens and a price table (USD per million tokens). Pure.
import { z } from 'zod';

export const modelPriceSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cache_read: z.number().nonnegative().optional(),
  cache_write: z.number().nonnegative().optional(),
});
export const priceTableSchema = z.object({ models: z.record(z.string(), modelPriceSchema) });
export type ModelPrice = z.infer<typeof modelPriceSchema>;
export type PriceTable = z.infer<typeof priceTableSchema>;

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

/** Entries of `override` replace those of `base` with the same model name. */
export function mergePriceTables(base: PriceTable, override?: PriceTable): PriceTable {
  return { models: { ...base.models, ...(override?.models ?? {}) } };
}

/**
 * Finds the price of a model name as agents write it: case-insensitive, provider prefixes
 * (`anthropic/`, `openai:`) dropped, and dated or suffixed variants (`gpt-4o-2024-08-06`,
 * `claude-sonnet-4-5-20250929`) matched to the longest listed name they start with.
 */
export class PriceBook {
  private readonly names: string[];
  private readonly cache = new Map<string, ModelPrice | null>();

  constructor(private readonly table: PriceTable) {
    this.names = Object.keys(table.models)
      .map((n) => n.toLowerCase())
      .sort((a, b) => b.length - a.length);
  }

  find(model: string): ModelPrice | null {
    const hit = this.cache.get(model);
    if (hit !== undefined) return hit;
    const price = this.lookup(model);
    if (this.cache.size < 10_000) this.cache.set(model, price);
    return price;
  }

  /** USD for the usage, or null when the model is not in the table. */
  cost(model: string, usage: TokenUsage): number | null {
    const price = model ? this.find(model) : null;
    return price ? stepCost(price, usage) : null;
  }

  private lookup(model: string): ModelPrice | null {
    const name = model.toLowerCase().replace(/^.*[/:]/, '');
    const models = this.table.models;
    const lowerToKey = new Map(Object.keys(models).map((k) => [k.toLowerCase(), k]));
    for (const candidate of this.names) {
      if (name === candidate || (name.startsWith(candidate) && /[-_@.:]/.test(name[candidate.length]))) {
        return models[lowerToKey.get(candidate)!];
      }
    }
    return null;
  }
}

/**
 * input_tokens counts the whole prompt, cache reads and writes included (OpenAI style); when
 * a sender counts only the uncached part (Anthropic style, so cached > input), input is taken
 * as uncached as it is.
 */
export function stepCost(price: ModelPrice, u: TokenUsage): number {
  const cached = u.cache_read_tokens + u.cache_write_tokens;
  const uncached = u.input_tokens >= cached ? u.input_tokens - cached : u.input_tokens;
  const usd =
    uncached * price.input +
    u.cache_read_tokens * (price.cache_read ?? price.input) +
    u.cache_write_tokens * (price.cache_write ?? price.input) +
    u.output_tokens * price.output;
  return usd / 1_000_000;
}
