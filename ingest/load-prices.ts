// Loads the shipped model price table, merged with an override file when configured.
import { readFileSync } from 'node:fs';
import { mergePriceTables, PriceBook, priceTableSchema, type PriceTable } from '../analytics/pricing.js';
import shipped from '../analytics/model-prices.json' with { type: 'json' };

export class PriceFileError extends Error {
  override readonly name = 'PriceFileError';
}

export function loadPriceBook(overrideFile?: string): PriceBook {
  const base = priceTableSchema.parse(shipped);
  let override: PriceTable | undefined;
  if (overrideFile) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(overrideFile, 'utf8'));
    } catch (err) {
      throw new PriceFileError(`cannot read the price table ${overrideFile}: ${(err as Error).message}`);
    }
    const parsed = priceTableSchema.safeParse(raw);
    if (!parsed.success) {
      throw new PriceFileError(
        `the price table ${overrideFile} is not {"models": {"<name>": {"input", "output", "cache_read"?, "cache_write"?}}}: ${parsed.error.issues[0]?.message}`,
      );
    }
    override = parsed.data;
  }
  return new PriceBook(mergePriceTables(base, override));
}
