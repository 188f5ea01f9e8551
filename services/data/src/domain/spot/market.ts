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

export function marketLabel(m: { venue: string; symbol: string }): string {
  return `${m.venue}:${m.symbol}`;
}
