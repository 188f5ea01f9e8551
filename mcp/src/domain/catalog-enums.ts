import { CATALOG, DATA_INTERVALS, INGEST_MODES, catalogFor, type ProductEntry } from '@meridian/contracts';

/**
 * The enumerations of the agent tools' arguments (data-api-interface 4.6), generated from the
 * metric catalogue once at start: a tool never offers a value the catalogue does not name. The entity
 * and venue enums are those of every ingest mode together (catalogFor: live serves the 19 spot markets,
 * replay the recorded BTC ones): the data service behind the gateway answers in its own mode and refuses
 * with a 400 that names what it serves, which the tool passes on.
 */
const unique = (values: Iterable<string>): [string, ...string[]] => {
  const list = [...new Set(values)].sort();
  if (list.length === 0) throw new Error('the catalogue names no value for an enumeration');
  return list as [string, ...string[]];
};

const live = (p: ProductEntry) => p.metrics.filter((m) => m.status === 'live');
/** The products of every mode's catalogue (the same products; their entities and venues differ). */
const EVERY_MODE = INGEST_MODES.flatMap((mode) => catalogFor(mode).products);

export const CATEGORIES = unique(CATALOG.map((p) => p.category));
export const PRODUCTS = unique(CATALOG.map((p) => p.product));
/** Live metrics only: a planned one has no data to read (browse_catalog lists them). */
export const METRICS = unique(CATALOG.flatMap((p) => live(p).map((m) => m.metric)));
export const SYMBOLS = unique(EVERY_MODE.flatMap((p) => p.entities));
export const VENUES = unique(EVERY_MODE.flatMap((p) => p.sources));
export const INTERVALS = [...DATA_INTERVALS] as [string, ...string[]];
export const OPTION_TYPES = ['call', 'put'] as const;
export const STATUSES = ['live', 'planned'] as const;

/** One product as every mode lists it. */
function product(category: string, name: string): ProductEntry[] {
  const entries = EVERY_MODE.filter((p) => p.category === category && p.product === name);
  if (entries.length === 0) throw new Error(`the catalogue has no ${category}/${name}`);
  return entries;
}

const SPOT = product('crypto', 'spot');
const OPTIONS = product('crypto', 'options');

/** crypto/spot markets (ohlcv, recent_trades) and their venues. */
export const SPOT_SYMBOLS = unique(SPOT.flatMap((p) => p.entities));
export const SPOT_VENUES = unique(SPOT.flatMap((p) => p.sources));
/** What crypto/spot/reference_price prices (a price in USD; source= narrows the venues). */
export const REFERENCE_SYMBOLS = unique(
  SPOT.flatMap((p) => p.metrics.find((m) => m.metric === 'reference_price')?.entities ?? p.entities),
);
export const UNDERLYINGS = unique(OPTIONS.flatMap((p) => p.entities));

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
