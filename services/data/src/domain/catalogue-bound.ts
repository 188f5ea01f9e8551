import { LIVE_DERIVATIVES, type Catalog, type IngestBatch } from '@meridian/contracts';

export interface BatchRefusal {
  path: string;
  message: string;
}

interface Bounds {
  spot: string[];
  /** The quote currencies of the spot markets other than USD: their Q-USD markets price them outright. */
  quoteRateMarkets: string[];
  futuresBases: Set<string>;
  underlyings: Set<string>;
}

const BOUNDS = new WeakMap<Catalog, Bounds>();

function boundsOf(catalog: Catalog): Bounds {
  let bounds = BOUNDS.get(catalog);
  if (bounds) return bounds;
  const spot = catalog.entitiesOf('crypto', 'spot');
  bounds = {
    spot,
    quoteRateMarkets: [...new Set(spot.map((s) => s.split('-')[1]!))]
      .filter((q) => q !== 'USD')
      .map((q) => `${q}-USD`),
    // Derivatives are bound to the markets of either mode: a database filled live keeps its ETH marks
    // when the service restarts in replay (and the reverse).
    futuresBases: new Set(
      [...catalog.entitiesOf('crypto', 'futures'), ...LIVE_DERIVATIVES.futures.entities].map(
        (e) => e.split('-')[0]!,
      ),
    ),
    underlyings: new Set([...catalog.entitiesOf('crypto', 'options'), ...LIVE_DERIVATIVES.options.entities]),
  };
  BOUNDS.set(catalog, bounds);
  return bounds;
}

/**
 * Whether a batch of a catalogue-bound product may be stored, by the catalogue of the running mode
 * (catalogFor(INGEST_MODE): live stores the live markets, replay the recorded ones): a market the catalogue does not list
 * could be stored but never read (the data endpoint answers catalogue entities only), so it is refused
 * at the door instead. Spot candles and trades: a symbol of crypto/spot, or (candles) a quote currency's
 * own USD market (USDC-USD), which the reference price reads to convert that quote; futures: a perp of a
 * base of crypto/futures, in any quote; option marks: an underlying of crypto/options. Observations are
 * keyed per feed and not bound here.
 */
export function catalogueRefusal(catalog: Catalog, batch: IngestBatch): BatchRefusal | undefined {
  const {
    spot: SPOT,
    quoteRateMarkets: QUOTE_RATE_MARKETS,
    futuresBases: FUTURES_BASES,
    underlyings: UNDERLYINGS,
  } = boundsOf(catalog);
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
