import { Router } from 'express';
import { buildServiceApp, type ServiceDeps } from '@meridian/runtime';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { priceRoutes } from './routes/prices.js';

export const SERVICE = 'billing';

export type Deps = ServiceDeps<Database, Config>;

/** The routes of this service, behind the gateway's caller assertion. */
export function routes(deps: Deps): Router {
  const router = Router();
  router.use(priceRoutes(deps));
  return router;
}

/** The whole express app without listen(), for supertest. */
export function createApp(deps: Deps, ready: () => Promise<void> = async () => {}) {
  return buildServiceApp({ name: SERVICE, routes }, deps, ready);
}
