import {
  LEGACY_ROUTES,
  isLegacyPath,
  metricPathOf,
  planReaches,
  DATA_QUERY_PARAMETERS,
  type Catalog,
  type CatalogHit,
  type Plan,
} from '@meridian/contracts';

/** Legacy single-metric routes (data-api-interface 4.1): the data service owns the map in the contracts. */
export { LEGACY_ROUTES };

export const DATA_PREFIX = '/v1/data';

/** A data call: the generic endpoint or a legacy route. Everything under /v1/data counts. */
export function isDataPath(path: string): boolean {
  return path === DATA_PREFIX || path.startsWith(`${DATA_PREFIX}/`) || isLegacyPath(path);
}

export interface DataTarget {
  category: string;
  product: string;
  metric: string;
  /** The catalogue entry; undefined for a path that names no metric of the catalogue. */
  hit: CatalogHit | undefined;
}

/**
 * The metric a data path names, decoded exactly as the data service decodes it (metricPathOf), with
 * its entry in the catalogue of the data service's mode (catalogFor(INGEST_MODE)), or undefined when
 * the path does not have the metric's shape.
 */
export function dataTarget(path: string, catalog: Catalog): DataTarget | undefined {
  const named = metricPathOf(path);
  return named && { ...named, hit: catalog.findMetric(named.category, named.product, named.metric) };
}

/**
 * dataTarget remembered per path, for the hot path: the catalogue is fixed for the life of the
 * process, and decoding a path and looking it up cost several µs a call under load. Holds at most
 * `max` paths and starts over past them, so a flood of distinct paths costs no more memory.
 */
export function dataTargets(catalog: Catalog, max = 1024): (path: string) => DataTarget | undefined {
  const known = new Map<string, DataTarget | null>();
  return (path) => {
    const seen = known.get(path);
    if (seen !== undefined) return seen ?? undefined;
    const target = dataTarget(path, catalog);
    if (known.size >= max) known.clear();
    known.set(path, target ?? null);
    return target;
  };
}

/**
 * A metric that is live and priced: keyless calls get the x402 challenge. Unknown and planned
 * metrics sell nothing; the data service answers them (route_not_found, not_yet_available).
 */
export function isPriced(target: DataTarget | undefined): target is DataTarget & { hit: CatalogHit } {
  return target?.hit?.metric.status === 'live';
}

/** The refusal detail when the plan is below the metric's gate, else undefined. */
export function gateRefusal(plan: Plan, target: DataTarget | undefined): string | undefined {
  const hit = target?.hit;
  if (!hit || hit.metric.status !== 'live' || planReaches(plan, hit)) return undefined;
  const path = `${hit.product.category}/${hit.product.product}/${hit.metric.metric}`;
  return `The metric ${path} needs the ${hit.gate} plan or higher; this key is on the ${plan} plan.`;
}

/**
 * A time-series read is priced higher (data-api-interface 4.4): a series-shaped metric, or series=true
 * on a metric whose catalogue entry offers a series. series=true on a metric without one buys no
 * series: it is challenged at the single-read price, and the data service refuses the parameter
 * (400 validation_failed naming the metric) before any data is answered.
 */
export function isSeriesRead(target: DataTarget & { hit: CatalogHit }, query: URLSearchParams): boolean {
  const { metric } = target.hit;
  if (metric.value_shape === 'series') return true;
  return metric.series && query.get('series') === 'true';
}

/**
 * The `resource.url` of a challenge: the path and the data endpoint's own parameters only, so a
 * credential a client put in the query (`api_key=`, a token) is never echoed back.
 */
export function challengedUrl(base: string, path: string, query: URLSearchParams): string {
  const kept = new URLSearchParams();
  for (const [name, value] of query) if (DATA_QUERY_PARAMETERS.includes(name)) kept.append(name, value);
  const search = kept.toString();
  return `${base}${path}${search ? `?${search}` : ''}`;
}
