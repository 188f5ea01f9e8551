import { DATA_INTERVALS } from '@meridian/contracts';
import type { ServedProduct } from './served-catalog.js';

/**
 * The enumerations of the agent tools' arguments (data-api-interface 4.6), generated from the
 * catalogue the deployment serves (GET /v1/catalog, in the data service's own mode: live lists the
 * live markets, replay the recorded ones), so a tool offers exactly the values that answer.
 */
export interface ToolEnums {
  categories: Enum;
  products: Enum;
  /** Live metrics only: a planned one has no data to read (browse_catalog lists them). */
  metrics: Enum;
  symbols: Enum;
  venues: Enum;
  /** crypto/spot markets (ohlcv, recent_trades) and their venues. */
  spotSymbols: Enum;
  spotVenues: Enum;
  /** What crypto/spot/reference_price prices (a price in USD; source= narrows the venues). */
  referenceSymbols: Enum;
  underlyings: Enum;
}

type Enum = [string, ...string[]];

export const INTERVALS = [...DATA_INTERVALS] as Enum;
export const OPTION_TYPES = ['call', 'put'] as const;
export const STATUSES = ['live', 'planned'] as const;

const unique = (what: string, values: Iterable<string>): Enum => {
  const list = [...new Set(values)].sort();
  if (list.length === 0) throw new Error(`the served catalogue names no ${what}`);
  return list as Enum;
};

function productOf(products: readonly ServedProduct[], category: string, name: string): ServedProduct {
  const entry = products.find((p) => p.category === category && p.product === name);
  if (!entry) throw new Error(`the served catalogue has no ${category}/${name}`);
  return entry;
}

export function toolEnums(products: readonly ServedProduct[]): ToolEnums {
  const spot = productOf(products, 'crypto', 'spot');
  const options = productOf(products, 'crypto', 'options');
  const reference = spot.metrics.find((m) => m.metric === 'reference_price');
  return {
    categories: unique(
      'category',
      products.map((p) => p.category),
    ),
    products: unique(
      'product',
      products.map((p) => p.product),
    ),
    metrics: unique(
      'live metric',
      products.flatMap((p) => p.metrics.filter((m) => m.status === 'live').map((m) => m.metric)),
    ),
    symbols: unique(
      'entity',
      products.flatMap((p) => p.entities),
    ),
    venues: unique(
      'venue',
      products.flatMap((p) => p.sources),
    ),
    spotSymbols: unique('spot market', spot.entities),
    spotVenues: unique('spot venue', spot.sources),
    referenceSymbols: unique('priced pair', reference?.entities ?? spot.entities),
    underlyings: unique('underlying', options.entities),
  };
}

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
