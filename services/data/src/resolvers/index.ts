import type { Deps } from '../context.js';
import { feedResolvers } from '../domain/feeds/index.js';
import type { MetricResolver } from '../domain/metric-resolver.js';
import { spotResolvers } from './spot.js';

const RESOLVERS: Record<string, MetricResolver<Deps>> = { ...feedResolvers, ...spotResolvers };

/** The resolver of 'category/product/metric': crypto/spot here, every other feed from domain/feeds. */
export function resolverFor(key: string): MetricResolver<Deps> | undefined {
  return RESOLVERS[key];
}
