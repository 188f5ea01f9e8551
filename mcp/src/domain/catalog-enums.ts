import { CATALOG, DATA_INTERVALS, findMetric, type ProductEntry } from '@meridian/contracts';

/**
 * The enumerations of the agent tools' arguments (data-api-interface 4.6), generated from the
 * metric catalogue once at start: a tool never offers a value the catalogue does not name.
 */
const unique = (values: Iterable<string>): [string, ...string[]] => {
  const list = [...new Set(values)].sort();
  if (list.length === 0) throw new Error('the catalogue names no value for an enumeration');
  return list as [string, ...string[]];
};

const live = (p: ProductEntry) => p.metrics.filter((m) => m.status === 'live');

export const CATEGORIES = unique(CATALOG.map((p) => p.category));
export const PRODUCTS = unique(CATALOG.map((p) => p.product));
/** Live metrics only: a planned one has no data to read (browse_catalog lists them). */
export const METRICS = unique(CATALOG.flatMap((p) => live(p).map((m) => m.metric)));
export const SYMBOLS = unique(CATALOG.flatMap((p) => p.entities));
export const VENUES = unique(CATALOG.flatMap((p) => p.sources));
export const INTERVALS = [...DATA_INTERVALS] as [string, ...string[]];
export const OPTION_TYPES = ['call', 'put'] as const;
export const STATUSES = ['live', 'planned'] as const;

function product(category: string, name: string): ProductEntry {
  const entry = CATALOG.find((p) => p.category === category && p.product === name);
  if (!entry) throw new Error(`the catalogue has no ${category}/${name}`);
  return entry;
}

const SPOT = product('crypto', 'spot');
const OPTIONS = product('crypto', 'options');

/** crypto/spot markets (ohlcv, recent_trades) and their venues. */
export const SPOT_SYMBOLS = unique(SPOT.entities);
export const SPOT_VENUES = unique(SPOT.sources);
/** What crypto/spot/reference_price prices (a price in USD; source= narrows the venues). */
export const REFERENCE_SYMBOLS = unique(
  findMetric('crypto', 'spot', 'reference_price')?.metric.entities ?? SPOT.entities,
);
export const UNDERLYINGS = unique(OPTIONS.entities);

export interface MetricTarget {
  category: string;
  product: string;
  metric: string;
}

export const REFERENCE_PRICE: MetricTarget = {
  category: 'crypto',
  product: 'spot',
  metric: 'reference_price',
};
export const OHLCV: MetricTarget = { category: 'crypto', product: 'spot', metric: 'ohlcv' };
export const TRADES: MetricTarget = { category: 'crypto', product: 'spot', metric: 'trades' };
export const OPTION_CHAIN: MetricTarget = { category: 'crypto', product: 'options', metric: 'chain' };

export const pathOf = (t: MetricTarget) => `${t.category}/${t.product}/${t.metric}`;
