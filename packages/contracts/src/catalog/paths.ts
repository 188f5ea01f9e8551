import { byCodeUnits } from '../order.js';
import { CATALOG } from './products.js';

/** Path segments that are routes of their own, so never a legacy metric route. */
const RESERVED_LEGACY = new Set([
  'data',
  'catalog',
  'demo',
  'billing',
  'keys',
  'account',
  'accounts',
  'health',
]);

/**
 * Legacy single-metric routes (data-api-interface 4.1, 9): `/v1/<metric>` for every metric whose
 * name is unique in the catalogue, answered by the same resolver as `/v1/data/<category>/<product>/<metric>`
 * with the same query parameters. Path → 'category/product/metric'; the gateway routes and gates them.
 */
export const LEGACY_ROUTES: Readonly<Record<string, string>> = (() => {
  const byName = new Map<string, string[]>();
  for (const p of CATALOG)
    for (const m of p.metrics)
      byName.set(m.metric, [...(byName.get(m.metric) ?? []), `${p.category}/${p.product}/${m.metric}`]);
  const routes: Record<string, string> = {};
  for (const [name, paths] of [...byName].sort(([a], [b]) => byCodeUnits(a, b)))
    if (paths.length === 1 && !RESERVED_LEGACY.has(name)) routes[`/v1/${name}`] = paths[0]!;
  return Object.freeze(routes);
})();

export interface MetricPath {
  category: string;
  product: string;
  metric: string;
}

const DATA_PATH_PREFIX = '/v1/data/';

/**
 * The metric a request path names, generic (`/v1/data/<category>/<product>/<metric>`) or legacy,
 * with each segment percent-decoded. The gateway's gate and the data service's resolver read the
 * path through this one function, so an encoded path cannot name one metric to the gate and
 * another to the resolver. Undefined when the path does not have a metric's shape.
 * `/v1/ohlcv/` is `/v1/ohlcv`, never a portal path that needs a session.
 */
export function metricPathOf(path: string): MetricPath | undefined {
  // One trailing slash names the same resource, as on every express route (non-strict routing).
  const pathname = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const legacy = Object.hasOwn(LEGACY_ROUTES, pathname) ? LEGACY_ROUTES[pathname] : undefined;
  const rest =
    legacy ?? (pathname.startsWith(DATA_PATH_PREFIX) ? pathname.slice(DATA_PATH_PREFIX.length) : undefined);
  if (rest === undefined) return undefined;
  const segments = rest.split('/');
  if (segments.length !== 3 || segments.some((s) => s === '')) return undefined;
  try {
    const [category, product, metric] = segments.map(decodeURIComponent) as [string, string, string];
    return { category, product, metric };
  } catch {
    return undefined;
  }
}

/** A legacy single-metric path, with or without one trailing slash. */
export function isLegacyPath(path: string): boolean {
  const pathname = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return Object.hasOwn(LEGACY_ROUTES, pathname);
}
