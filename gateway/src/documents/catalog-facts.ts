import { CATALOG, allMetrics, type CatalogHit } from '@meridian/contracts';

export const categories = (): string[] => [...new Set(CATALOG.map((p) => p.category))];
export const products = (): string[] => [...new Set(CATALOG.map((p) => p.product))];
export const metrics = (): string[] => [...new Set(allMetrics().map((h) => h.metric.metric))];

export function pathOf(hit: CatalogHit): string {
  return `/v1/data/${hit.product.category}/${hit.product.product}/${hit.metric.metric}`;
}

export function liveMetrics(): CatalogHit[] {
  return allMetrics().filter((h) => h.metric.status === 'live');
}

/** Where the documents say the API lives; '' keeps links relative when no public address is set. */
export function baseOf(publicBaseUrl: string | undefined): string {
  return (publicBaseUrl ?? '').replace(/\/+$/, '');
}
