import type { DataDeps } from '../deps.js';
import { feedResolvers } from '../domain/feeds/index.js';
import type { MetricResolver } from '../domain/metric-resolver.js';
import { spotResolvers } from './spot.js';

const RESOLVERS: Record<string, MetricResolver<DataDeps>> = { ...feedResolvers, ...spotResolvers };

/** The resolver of 'category/product/metric': crypto/spot here, every other feed from domain/feeds. */
export function resolverFor(key: string): MetricResolver<DataDeps> | undefined {
  return RESOLVERS[key];
}
