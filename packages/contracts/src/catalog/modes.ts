import { higherPlan } from './lookup.js';
import { CATALOG } from './products.js';
import { LIVE_SPOT_MARKETS, LIVE_SPOT_VENUES } from './live-markets.js';
import { LIVE_DERIVATIVES } from './categories/crypto.js';
import { replayDerivationOf, replayDescription, replaySourceOf } from './replay-sources.js';
import type { Catalog, CatalogHit, IngestMode, MetricEntry, ProductEntry } from './types.js';

/**
 * What a mode changes of one product: which entities it serves, and from which venues. Its metrics,
 * gates and cadences are the same in every mode; a metric only the recordings hold is `planned` where
 * no upstream of the mode gives it.
 */
export interface EntityListing {
  sources: string[];
  entities: string[];
  default_entity?: string;
  venue_entities?: Record<string, string[]>;
  /** Per metric, its own entity lists in this mode; a metric not named keeps none. */
  metrics?: Record<string, Partial<Pick<MetricEntry, 'entities' | 'combined_entities' | 'status'>>>;
}

const USD_MARKETS = LIVE_SPOT_MARKETS.filter((m) => m.endsWith('-USD'));

/** crypto/spot in live mode: the 19 markets of the six venues; combined values in USD for every base. */
const LIVE_SPOT: EntityListing = {
  sources: Object.keys(LIVE_SPOT_VENUES),
  entities: [...LIVE_SPOT_MARKETS],
  default_entity: 'BTC-USD',
  venue_entities: Object.fromEntries(Object.entries(LIVE_SPOT_VENUES).map(([v, ms]) => [v, [...ms]])),
  metrics: Object.fromEntries(
    [
      'reference_price',
      'change_24h',
      'range_24h',
      'vwap_24h',
      'realized_volatility_24h',
      'trade_count_24h',
      'ohlcv',
    ].map((m) => [
      m,
      m === 'reference_price' ? { entities: [...USD_MARKETS] } : { combined_entities: [...USD_MARKETS] },
    ]),
  ),
};

/**
 * Per mode, the products whose entities differ from the built catalogue (CATALOG, what the recordings
 * hold), keyed `category/product`: in live mode spot (the six venues' 19 markets), futures (the 19
 * perpetuals of LIVE_FUTURES_MARKETS) and options (LIVE_OPTION_UNDERLYINGS), from LIVE_DERIVATIVES.
 */
const LISTINGS: Readonly<Record<IngestMode, Readonly<Record<string, EntityListing>>>> = {
  replay: {},
  off: {},
  live: {
    'crypto/spot': LIVE_SPOT,
    'crypto/futures': {
      ...LIVE_DERIVATIVES.futures,
      default_entity: 'BTC-USD',
      // The live connectors poll marks and funding rates, not the perps' trade bars.
      metrics: { last_price: { status: 'planned' }, taker_flow: { status: 'planned' } },
    },
    'crypto/options': { ...LIVE_DERIVATIVES.options, default_entity: 'BTC' },
  },
};

/**
 * Metrics whose recording under replay holds one point (a feed played again at each slot keeps only
 * its newest play; a two-day sample computes one change): replay offers no series of them, so neither
 * answers nor documents nor prices one. Live mode stores every poll and keeps their series.
 */
const REPLAY_WITHOUT_HISTORY = new Set([
  'weather/observations/temperature',
  'weather/observations/wind_speed',
  'weather/observations/precipitation',
  'absurd_earth/weather/temperature',
  'crypto/network/market_cap',
  'crypto/network/hashrate',
  'crypto/network/difficulty',
  'crypto/network/tx_count',
  'crypto/etf_flows/cumulative_net_flow',
  'fx/spot/change_24h',
  'absurd_civic/leviathan_ledger/red_tape_output',
  'absurd_cosmos/off_world/humans_in_space',
]);

function listed(p: ProductEntry, listing: EntityListing | undefined): ProductEntry {
  if (!listing) return p;
  const { default_entity: _default, venue_entities: _venues, ...rest } = p;
  const metrics = p.metrics.map(({ entities: _own, combined_entities: _combined, ...metric }) => {
    const lists = listing.metrics?.[metric.metric] ?? {};
    return {
      ...metric,
      ...(lists.combined_entities ? { combined_entities: lists.combined_entities } : {}),
      ...(lists.entities ? { entities: lists.entities } : {}),
      ...(lists.status ? { status: lists.status } : {}),
    };
  });
  return {
    ...rest,
    sources: listing.sources,
    entities: listing.entities,
    ...(listing.default_entity ? { default_entity: listing.default_entity } : {}),
    ...(listing.venue_entities ? { venue_entities: listing.venue_entities } : {}),
    metrics,
  };
}

/**
 * The product as this mode serves its metrics: under replay, `series` off where replay holds no
 * history, and each live metric's description saying what it is played from.
 */
function asServed(p: ProductEntry, mode: IngestMode): ProductEntry {
  if (mode !== 'replay') return p;
  return {
    ...p,
    metrics: p.metrics.map((m) => ({
      ...m,
      ...(REPLAY_WITHOUT_HISTORY.has(`${p.category}/${p.product}/${m.metric}`) ? { series: false } : {}),
      ...(m.status === 'live'
        ? {
            description: replayDescription(
              m.description,
              replaySourceOf(p.category, p.product, m.metric),
              replayDerivationOf(p.category, p.product, m.metric),
            ),
          }
        : {}),
    })),
  };
}

function build(mode: IngestMode): Catalog {
  const products = CATALOG.map((p) =>
    asServed(listed(p, LISTINGS[mode][`${p.category}/${p.product}`]), mode),
  );
  const index = new Map<string, CatalogHit>();
  for (const p of products)
    for (const m of p.metrics)
      index.set(`${p.category}/${p.product}/${m.metric}`, {
        product: p,
        metric: m,
        gate: higherPlan(p.min_tier, m.min_tier),
      });
  return {
    mode,
    products,
    findMetric: (category, product, metric) => index.get(`${category}/${product}/${metric}`),
    allMetrics: () => [...index.values()],
    entitiesOf: (category, product) =>
      products.find((p) => p.category === category && p.product === product)?.entities ?? [],
  };
}

const BUILT = new Map<IngestMode, Catalog>();

/** The catalogue `mode` serves: under replay (and off) the built one as it is; live lists the live markets. */
export function catalogFor(mode: IngestMode): Catalog {
  let catalog = BUILT.get(mode);
  if (!catalog) BUILT.set(mode, (catalog = build(mode)));
  return catalog;
}
