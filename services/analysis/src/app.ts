import { Router } from 'express';
import type { AnalysisDeps } from './deps.js';
import { reportRoutes } from './routes/reports.js';

/** The routes of this service, behind the gateway's caller assertion. */
export function routes(deps: AnalysisDeps): Router {
  const router = Router();
  router.use(reportRoutes(deps));
  return router;
}
