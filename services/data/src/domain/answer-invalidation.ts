import type { IngestBatch } from '@meridian/contracts';

type IngestKind = IngestBatch['kind'];
export const INGEST_KINDS: readonly IngestKind[] = [
  'candles',
  'trades',
  'option_marks',
  'funding',
  'mark_prices',
  'observations',
];

/**
 * What invalidates a product's cached answers: the kinds of ingested batch its resolvers read.
 * Spot reads bars and prints; futures their marks, funding and trade bars (observations) and the spot
 * reference (bars) for basis and quote rates; options the chain's marks and DVOL (an observation);
 * every other product observations only (its rows and its replay marker).
 */
const READS: Record<string, readonly IngestKind[]> = {
  'crypto/spot': ['candles', 'trades'],
  'crypto/futures': ['funding', 'mark_prices', 'candles', 'observations'],
  'crypto/options': ['option_marks', 'observations'],
};

export function kindsRead(category: string, product: string): readonly IngestKind[] {
  return READS[`${category}/${product}`] ?? ['observations'];
}

/** The products (`category/product`) whose answers read rows of `kind`: those a change of it invalidates. */
export function productsReading(
  products: readonly { category: string; product: string }[],
  kind: IngestKind,
): string[] {
  return products
    .filter((p) => kindsRead(p.category, p.product).includes(kind))
    .map((p) => `${p.category}/${p.product}`);
}
