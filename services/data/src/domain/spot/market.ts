/** Spot markets are BASE-QUOTE symbols on a venue; an entity is BASE-USD, answered in USD. */
export interface Market {
  venue: string;
  symbol: string;
  base: string;
  quote: string;
}

export const ENTITY_PATTERN = /^[A-Z0-9]{2,12}-USD$/;

export function baseOf(entity: string): string {
  return entity.split('-')[0]!;
}

/** BASE and QUOTE of a symbol; a symbol without a dash is all base. */
export function splitSymbol(symbol: string): { base: string; quote: string } {
  const [base = symbol, quote = ''] = symbol.split('-');
  return { base, quote };
}

export function marketLabel(m: { venue: string; symbol: string }): string {
  return `${m.venue}:${m.symbol}`;
}
