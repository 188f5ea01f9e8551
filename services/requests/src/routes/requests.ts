import { Router } from 'express';
import { serviceRequestSchema } from '@meridian/contracts';
import { parseInput, sessionAccountOf } from '@meridian/http-kit';
import type { RequestsDeps } from '../deps.js';
import { recordRequest } from '../flows/record-request.js';
import { valueOf } from './answer.js';

/** POST /v1/requests (portal 2.4, 4.6): a plain `{ok, count}` body; it starts nothing. */
export function requestRoutes(deps: RequestsDeps): Router {
  const router = Router();
  router.post('/v1/requests', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const body = parseInput(serviceRequestSchema.strict(), req.body);
    res.json(valueOf(await recordRequest(deps, accountId, body)));
  });
  return router;
}
