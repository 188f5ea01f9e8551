import { Router } from 'express';
import type { BillingDeps } from './deps.js';
import { creditRoutes } from './routes/credits.js';
import { legacyAccountRoutes } from './routes/legacy-account.js';
import { operatorLogRoutes } from './routes/operator-log.js';
import { operatorRoutes } from './routes/operator.js';
import { priceRoutes } from './routes/prices.js';
import { subscriptionRoutes } from './routes/subscriptions.js';

/** The routes of this service, behind the gateway's caller assertion. */
export function routes(deps: BillingDeps): Router {
  const router = Router();
  router.use(priceRoutes(deps));
  router.use(creditRoutes(deps));
  router.use(subscriptionRoutes(deps));
  router.use(legacyAccountRoutes(deps));
  router.use(operatorRoutes(deps));
  router.use(operatorLogRoutes(deps));
  return router;
}
