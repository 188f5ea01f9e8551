import type { DataDeps } from '../../deps.js';
import type { MetricResolver } from '../../domain/metric-resolver.js';
import { civicResolvers } from './feeds/civic.js';
import { commodityResolvers } from './feeds/commodities.js';
import { cosmosResolvers } from './feeds/cosmos.js';
import { etfFlowResolvers } from './feeds/etf-flows.js';
import { futuresResolvers } from './derivatives/futures.js';
import { fxResolvers } from './feeds/fx.js';
import { indexResolvers } from './feeds/indices.js';
import { macroResolvers } from './feeds/macro.js';
import { medicalResolvers } from './feeds/medical.js';
import { networkResolvers } from './feeds/network.js';
import { ohlcvResolver } from './spot/ohlcv.js';
import { optionsResolvers } from './derivatives/options.js';
import { referencePriceResolver } from './spot/reference-price.js';
import { sportsResolvers } from './feeds/sports.js';
import { spotStatResolvers } from './spot/spot-stats.js';
import { tradesResolver } from './spot/trades.js';
import { weatherResolvers } from './feeds/weather.js';

/** Every metric other than crypto/spot, answered from what the feeds stored. */
export const feedResolvers: Record<string, MetricResolver<DataDeps>> = {
  ...optionsResolvers,
  ...futuresResolvers,
  ...etfFlowResolvers,
  ...fxResolvers,
  ...indexResolvers,
  ...commodityResolvers,
  ...macroResolvers,
  ...networkResolvers,
  ...weatherResolvers,
  ...cosmosResolvers,
  ...civicResolvers,
  ...medicalResolvers,
  ...sportsResolvers,
};

/** crypto/spot, answered from the stored bars and trades of every venue. */
export const spotResolvers: Record<string, MetricResolver<DataDeps>> = {
  'crypto/spot/reference_price': referencePriceResolver,
  ...spotStatResolvers,
  'crypto/spot/ohlcv': ohlcvResolver,
  'crypto/spot/trades': tradesResolver,
};

const RESOLVERS: Record<string, MetricResolver<DataDeps>> = { ...feedResolvers, ...spotResolvers };

/** The resolver of 'category/product/metric'; undefined for a metric this build does not answer. */
export function resolverFor(key: string): MetricResolver<DataDeps> | undefined {
  return RESOLVERS[key];
}
