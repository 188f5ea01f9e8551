import { Router } from 'express';
import { buildServiceApp } from '@meridian/runtime';
import { SERVICE, type DataDeps } from './deps.js';
import { catalogRoutes } from './routes/catalog.js';
import { dataLeanRoutes } from './routes/data.js';
import { demoRoutes } from './routes/demo.js';

export { SERVICE };
export type Deps = DataDeps;

/** The routes of this service, behind the gateway's caller assertion. */
export function routes(deps: DataDeps): Router {
  const router = Router();
  router.use(catalogRoutes(deps.config.DATA_REPLAY === 'on' ? 'replay' : 'stored'), demoRoutes(deps));
  return router;
}

/** GET /v1/data/... and the legacy routes, served before express. */
export function leanRoutes(deps: DataDeps) {
  return dataLeanRoutes(deps);
}

/** `/ready` beyond the database and bus: the replay's first load has run (main.ts passes the same). */
export function dataReady(deps: DataDeps): Promise<void> {
  return deps.firstLoad.ready();
}

/** The whole app without listen(), for supertest. */
export function createApp(deps: DataDeps, ready: () => Promise<void> = async () => {}) {
  return buildServiceApp({ name: SERVICE, routes, leanRoutes, ready: dataReady }, deps, ready);
}
