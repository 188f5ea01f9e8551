import { LEGACY_ROUTES, type Catalog, type CatalogHit } from '@meridian/contracts';

export function pathOf(hit: CatalogHit): string {
  return `/v1/data/${hit.product.category}/${hit.product.product}/${hit.metric.metric}`;
}

/** The live metrics of the catalogue of the data service's mode (catalogFor(INGEST_MODE)). */
export function liveMetrics(catalog: Catalog): CatalogHit[] {
  return catalog.allMetrics().filter((h) => h.metric.status === 'live');
}

export interface PricedPath {
  path: string;
  hit: CatalogHit;
  /** The generic path a legacy alias answers for. */
  aliasOf?: string;
}

/**
 * Every priced path: the generic route of each live metric, then each legacy alias of a live
 * metric, which the edge prices and gates exactly as the route it aliases. The OpenAPI document
 * and the x402 manifest both list these.
 */
export function pricedPaths(catalog: Catalog): PricedPath[] {
  const live = liveMetrics(catalog);
  const byPath = new Map(live.map((hit) => [pathOf(hit), hit]));
  const legacy = Object.entries(LEGACY_ROUTES).flatMap(([path, key]) => {
    const hit = byPath.get(`/v1/data/${key}`);
    return hit ? [{ path, hit, aliasOf: pathOf(hit) }] : [];
  });
  return [...live.map((hit) => ({ path: pathOf(hit), hit })), ...legacy];
}

/** Where the documents say the API lives; '' keeps links relative when no public address is set. */
export function baseOf(publicBaseUrl: string | undefined): string {
  return (publicBaseUrl ?? '').replace(/\/+$/, '');
}
