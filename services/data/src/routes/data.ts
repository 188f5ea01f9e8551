import { metricPathOf, queryParametersOf } from '@meridian/contracts';
import { parseQuery, type LeanRoute } from '@meridian/http-kit';
import type { DataDeps } from '../deps.js';
import { admitMetric, answerMetric, type MetricPath } from '../flows/answer-metric.js';
import { valueOf } from './answer.js';
import { dataQuerySchema } from './query.js';

const DATA_PREFIX = '/v1/data/';

/**
 * GET /v1/data/{category}/{product}/{metric} and the legacy single-metric routes, served on the
 * lean path: they are the hot reads of the service. The path is read by the contracts'
 * metricPathOf, the same function the gateway's gate uses. A path of another shape falls through
 * to express and its routing 404.
 */
export function dataLeanRoutes(deps: DataDeps): LeanRoute[] {
  const handle: LeanRoute['handle'] = async (p, rawQuery, caller) => {
    const path: MetricPath = { category: p.category!, product: p.product!, metric: p.metric! };
    const hit = valueOf(admitMetric(deps, path, caller));
    // The parameters the metric takes are listed when an unknown one is refused; a row filter
    // of another metric is refused by the flow, saying which metric takes it.
    const query = parseQuery(dataQuerySchema, rawQuery, 'query', queryParametersOf(hit));
    return valueOf(await answerMetric(deps, path, hit, query));
  };
  return [
    {
      label: '/v1/data/:category/:product/:metric',
      match: (path) => (path.startsWith(DATA_PREFIX) ? pathParams(path) : undefined),
      handle,
    },
    {
      label: '/v1/:legacy_metric',
      match: (path) => (path.startsWith(DATA_PREFIX) ? undefined : pathParams(path)),
      handle,
    },
  ];
}

function pathParams(path: string): Record<string, string> | undefined {
  const named = metricPathOf(path);
  return named && { ...named };
}
