import type { ServedProduct } from './served-catalog.js';
import { invalidArgument, type ToolError } from './tool-error.js';

/**
 * A spot market as a tool over one crypto/spot metric offers it: answered without `source`
 * (combined across venues) or only with one of the venues listing it.
 */
export interface SpotMarket {
  symbol: string;
  combined: boolean;
  venues: string[];
}

/** The markets of crypto/spot for `metric` in the served catalogue, with the venues listing each. */
export function spotMarkets(products: readonly ServedProduct[], metric: string): SpotMarket[] {
  const spot = products.find((p) => p.category === 'crypto' && p.product === 'spot');
  if (!spot) return [];
  const combined = spot.metrics.find((m) => m.metric === metric)?.combined_entities;
  const listing = Object.entries(spot.venue_entities ?? {});
  return [...spot.entities].sort().map((symbol) => ({
    symbol,
    combined: combined === undefined || combined.includes(symbol),
    venues: spot.venue_entities
      ? listing.filter(([, listed]) => listed.includes(symbol)).map(([venue]) => venue)
      : [...spot.sources],
  }));
}

const or = (venues: string[]) =>
  venues.length <= 1 ? (venues[0] ?? 'none') : `${venues.slice(0, -1).join(', ')} or ${venues.at(-1)}`;

/** The pairs with their venues in words, for the schema an agent host reads. */
export function describeMarkets(markets: readonly SpotMarket[]): string {
  return markets
    .map((m) =>
      m.combined
        ? `${m.symbol}: without source (combined across venues), or source ${or(m.venues)}`
        : `${m.symbol}: needs source ${or(m.venues)}`,
    )
    .join('; ');
}

/**
 * Whether a symbol and source answer: a venue's own market without a source, or with a venue that
 * does not list it, is refused here, naming the venues that do (no API call spent on it).
 */
export function marketRefusal(
  markets: readonly SpotMarket[],
  symbol: string,
  source: string | undefined,
): ToolError | undefined {
  const market = markets.find((m) => m.symbol === symbol);
  if (!market) return undefined;
  if (source === undefined && !market.combined)
    return invalidArgument(
      `${symbol} is a venue's own market: it has no combined value across venues.`,
      `Call again with source ${or(market.venues)}, or ask for the combined market without source.`,
    );
  if (source !== undefined && !market.venues.includes(source))
    return invalidArgument(
      `${source} does not list ${symbol}.`,
      `Venues listing ${symbol}: ${market.venues.join(', ') || 'none'}.`,
    );
  return undefined;
}
