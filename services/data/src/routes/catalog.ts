import { Router } from 'express';
import {
  LEGACY_ROUTES,
  higherPlan,
  replaySourceOf,
  replayStatement,
  type Catalog,
} from '@meridian/contracts';
import { NO_PARAMETERS, envelope, parseQuery } from '@meridian/http-kit';

/**
 * Where the data of a live metric comes from: `replay` while the service plays its recordings
 * (INGEST_MODE=replay, the offline default: no live venue print, as every answer's method also says),
 * `live` while the connectors poll the real upstreams, `stored` when it answers what was ingested or
 * imported only.
 */
export type ServedFrom = 'replay' | 'live' | 'stored';

export function servedFrom(mode: Catalog['mode']): ServedFrom {
  return mode === 'off' ? 'stored' : mode;
}

/**
 * The catalogue as served: every category, product and metric, live or planned, with its path and gate;
 * the entities and venues are the running mode's (live lists the live markets, replay the recorded ones).
 */
export function catalogDocument(catalog: Catalog, servedFrom: ServedFrom = 'stored') {
  const legacyByKey = new Map(Object.entries(LEGACY_ROUTES).map(([path, key]) => [key, path]));
  const categories = [...new Set(catalog.products.map((p) => p.category))].map((category) => ({
    category,
    products: catalog.products
      .filter((p) => p.category === category)
      .map((p) => ({
        product: p.product,
        min_tier: p.min_tier,
        sources: p.sources,
        entities: p.entities,
        ...(p.default_entity !== undefined ? { default_entity: p.default_entity } : {}),
        ...(p.venue_entities !== undefined ? { venue_entities: p.venue_entities } : {}),
        ...(p.licence !== undefined ? { licence: p.licence } : {}),
        metrics: p.metrics.map((m) => {
          const key = `${p.category}/${p.product}/${m.metric}`;
          return {
            metric: m.metric,
            path: `/v1/data/${key}`,
            legacy_path: legacyByKey.get(key) ?? null,
            value_shape: m.value_shape,
            unit: m.unit,
            cadence: m.cadence,
            ...(m.cadence_ms !== undefined ? { cadence_ms: m.cadence_ms, max_age_ms: m.max_age_ms } : {}),
            series: m.series,
            ...(m.entities ? { entities: m.entities } : {}),
            ...(m.combined_entities ? { combined_entities: m.combined_entities } : {}),
            ...(m.filters ? { filters: m.filters } : {}),
            status: m.status,
            ...(m.status === 'live' ? { served_from: servedFrom } : {}),
            ...(m.status === 'live' && servedFrom === 'replay'
              ? { replayed_from: replaySourceOf(p.category, p.product, m.metric) }
              : {}),
            min_tier: higherPlan(p.min_tier, m.min_tier),
            description: m.description,
          };
        }),
      })),
  }));
  const replay = servedFrom === 'replay' ? replayStatement(catalog) : undefined;
  return { ...(replay ? { replay } : {}), categories };
}

export function catalogRoutes(catalog: Catalog, servedFrom: ServedFrom): Router {
  const router = Router();
  const body = catalogDocument(catalog, servedFrom);
  router.get('/v1/catalog', (req, res) => {
    parseQuery(NO_PARAMETERS, req.query);
    res.json(
      envelope(
        body,
        { confidence: 1 },
        {
          method: `The metric catalogue of this build as INGEST_MODE=${catalog.mode} serves it (packages/contracts catalogFor).`,
        },
      ),
    );
  });
  return router;
}
