import { Router } from 'express';
import { buildServiceApp, type ReadyDetails } from '@meridian/runtime';
import { SERVICE, type DataDeps } from './deps.js';
import { catalogRoutes, servedFrom } from './routes/catalog.js';
import { dataLeanRoutes } from './routes/data.js';
import { demoRoutes } from './routes/demo.js';

export { SERVICE };
export type Deps = DataDeps;

/** The routes of this service, behind the gateway's caller assertion. */
export function routes(deps: DataDeps): Router {
  const router = Router();
  router.use(catalogRoutes(deps.catalog, servedFrom(deps.config.INGEST_MODE)), demoRoutes(deps));
  return router;
}

/** GET /v1/data/... and the legacy routes, served before express. */
export function leanRoutes(deps: DataDeps) {
  return dataLeanRoutes(deps);
}

/**
 * `/ready` beyond the database and bus: the first load (replay) or the first polls (live) have run.
 * A failing upstream does not make the service unready (the others still serve); its state is in
 * the details.
 */
export async function dataReady(deps: DataDeps): Promise<ReadyDetails> {
  await deps.firstLoad.ready();
  return { ingest_mode: deps.config.INGEST_MODE, ...(deps.live ? { connectors: deps.live.report() } : {}) };
}

/** The whole app without listen(), for supertest. */
export function createApp(deps: DataDeps, ready: () => Promise<void> = async () => {}) {
  return buildServiceApp({ name: SERVICE, routes, leanRoutes, ready: dataReady }, deps, ready);
}
