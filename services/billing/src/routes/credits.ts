import { Router } from 'express';
import { billingHistoryQuerySchema, creditsQuerySchema } from '@meridian/contracts';
import { parseQuery, sessionAccountOf } from '@meridian/http-kit';
import type { BillingDeps } from '../deps.js';
import { readCredits } from '../flows/read-credits.js';
import { readHistory } from '../flows/read-history.js';
import { valueOf } from './answer.js';

/** GET /v1/credits (portal 2.3, 4.5: a plain body) and GET /v1/account/billing/history (2.1, 4.5). */
export function creditRoutes(deps: BillingDeps): Router {
  const router = Router();
  router.get('/v1/credits', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const query = parseQuery(creditsQuerySchema, req.query);
    res.json(valueOf(await readCredits(deps, accountId, query)));
  });
  router.get('/v1/account/billing/history', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const query = parseQuery(billingHistoryQuerySchema, req.query);
    res.json(valueOf(await readHistory(deps, accountId, query)));
  });
  return router;
}
