import { Router } from 'express';
import type { RequestsDeps } from './deps.js';
import { consultingRoutes } from './routes/consulting.js';
import { operatorLogRoutes } from './routes/operator-log.js';
import { operatorRoutes } from './routes/operator.js';
import { requestRoutes } from './routes/requests.js';

/** The routes of this service, behind the gateway's caller assertion. */
export function routes(deps: RequestsDeps): Router {
  const router = Router();
  router.use(requestRoutes(deps));
  router.use(consultingRoutes(deps));
  router.use(operatorRoutes(deps));
  router.use(operatorLogRoutes(deps));
  return router;
}
