import { Router } from 'express';
import { buildServiceApp } from '@meridian/runtime';
import { SERVICE, type BillingDeps } from './deps.js';
import { creditRoutes } from './routes/credits.js';
import { legacyAccountRoutes } from './routes/legacy-account.js';
import { priceRoutes } from './routes/prices.js';
import { subscriptionRoutes } from './routes/subscriptions.js';

/** The routes of this service, behind the gateway's caller assertion. */
export function routes(deps: BillingDeps): Router {
  const router = Router();
  router.use(priceRoutes(deps));
  router.use(creditRoutes(deps));
  router.use(subscriptionRoutes(deps));
  router.use(legacyAccountRoutes(deps));
  return router;
}

/** The whole express app without listen(), for supertest. */
export function createApp(deps: BillingDeps, ready: () => Promise<void> = async () => {}) {
  return buildServiceApp({ name: SERVICE, routes }, deps, ready);
}
