import { Router } from 'express';
import type { AnalysisDeps } from './deps.js';
import { auditRoutes } from './routes/audit.js';
import { credentialRoutes } from './routes/credentials.js';
import { domainRoutes } from './routes/domains.js';
import { operatorLogRoutes } from './routes/operator-log.js';
import { operatorRoutes } from './routes/operator.js';
import { rescanRoutes } from './routes/rescan.js';
import { runRoutes } from './routes/runs.js';
import { reportRoutes } from './routes/reports.js';

/** The routes of this service, behind the gateway's caller assertion. */
export function routes(deps: AnalysisDeps): Router {
  const router = Router();
  router.use(domainRoutes(deps));
  router.use(runRoutes(deps));
  router.use(auditRoutes(deps));
  router.use(credentialRoutes(deps));
  router.use(rescanRoutes(deps));
  router.use(reportRoutes(deps));
  // Before the review routes, whose `/v1/operator/reviews/:id` would read `log` as a run id.
  router.use(operatorLogRoutes(deps));
  router.use(operatorRoutes(deps));
  return router;
}
