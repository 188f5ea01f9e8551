import type { DataDeps } from '../../deps.js';
import type { MetricResolver } from '../../domain/metric-resolver.js';
import { civicResolvers } from './civic.js';
import { commodityResolvers } from './commodities.js';
import { cosmosResolvers } from './cosmos.js';
import { etfFlowResolvers } from './etf-flows.js';
import { futuresResolvers } from './futures.js';
import { fxResolvers } from './fx.js';
import { indexResolvers } from './indices.js';
import { macroResolvers } from './macro.js';
import { medicalResolvers } from './medical.js';
import { networkResolvers } from './network.js';
import { ohlcvResolver } from './ohlcv.js';
import { optionsResolvers } from './options.js';
import { referencePriceResolver } from './reference-price.js';
import { sportsResolvers } from './sports.js';
import { spotStatResolvers } from './spot-stats.js';
import { tradesResolver } from './trades.js';
import { weatherResolvers } from './weather.js';

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
