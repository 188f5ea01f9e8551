import { CATALOG, LIVE_DERIVATIVES, type IngestBatch } from '@meridian/contracts';

export interface BatchRefusal {
  path: string;
  message: string;
}

const entitiesOf = (category: string, product: string): string[] =>
  CATALOG.find((p) => p.category === category && p.product === product)?.entities ?? [];

const SPOT = entitiesOf('crypto', 'spot');
/** The quote currencies of the spot markets other than USD: their Q-USD markets price them outright. */
const QUOTE_RATE_MARKETS = [...new Set(SPOT.map((s) => s.split('-')[1]!))]
  .filter((q) => q !== 'USD')
  .map((q) => `${q}-USD`);
/**
 * Futures and options are bound to the markets of either mode (the recorded BTC ones and live mode's,
 * LIVE_DERIVATIVES): a database filled live keeps its ETH marks when the service restarts in replay,
 * and the live connectors write the 19 perpetuals and both underlyings whatever the catalogue module
 * lists at load.
 */
const FUTURES_BASES = new Set(
  [...entitiesOf('crypto', 'futures'), ...LIVE_DERIVATIVES.futures.entities].map((e) => e.split('-')[0]!),
);
const UNDERLYINGS = new Set([...entitiesOf('crypto', 'options'), ...LIVE_DERIVATIVES.options.entities]);

/**
 * Whether a batch of a catalogue-bound product may be stored: a market the catalogue does not list
 * could be stored but never read (the data endpoint answers catalogue entities only), so it is refused
 * at the door instead. Spot candles and trades: a symbol of crypto/spot, or (candles) a quote currency's
 * own USD market (USDC-USD), which the reference price reads to convert that quote; futures: a perp of a
 * base of crypto/futures, in any quote; option marks: an underlying of crypto/options. Observations are
 * keyed per feed and not bound here.
 */
export function catalogueRefusal(batch: IngestBatch): BatchRefusal | undefined {
  switch (batch.kind) {
    case 'candles':
    case 'trades': {
      const allowed = batch.kind === 'candles' ? [...SPOT, ...QUOTE_RATE_MARKETS] : SPOT;
      if (allowed.includes(batch.symbol)) return undefined;
      return {
        path: 'batch.symbol',
        message: `${batch.symbol} is not a crypto/spot market of the catalogue; ${batch.kind} are stored for ${allowed.join(', ')}`,
      };
    }
    case 'funding':
    case 'mark_prices': {
      const base = batch.symbol.split('-')[0]!;
      if (FUTURES_BASES.has(base)) return undefined;
      return {
        path: 'batch.symbol',
        message: `${batch.symbol} is not a perpetual of a crypto/futures base of the catalogue (${[...FUTURES_BASES].join(', ')})`,
      };
    }
    case 'option_marks': {
      const i = batch.rows.findIndex((r) => !UNDERLYINGS.has(r.underlying));
      if (i < 0) return undefined;
      return {
        path: `batch.rows.${i}.underlying`,
        message: `${batch.rows[i]!.underlying} is not an underlying of crypto/options in the catalogue (${[...UNDERLYINGS].join(', ')})`,
      };
    }
    case 'observations':
      return undefined;
  }
}
