import { Router } from 'express';
import { operatorLogPage, operatorLogQuery } from '@meridian/db';
import { cursorCodec, envelope, operatorAccountOf, parseInput } from '@meridian/http-kit';
import type { RequestsDeps } from '../deps.js';

const LOG = 'requests';

/**
 * GET /v1/operator/requests/log: the requests service's operator log (marks of service requests),
 * newest first, filtered and paged with signed cursors, for a session of an operator.
 */
export function operatorLogRoutes(deps: RequestsDeps): Router {
  const router = Router();
  const cursors = cursorCodec(deps.config.INTERNAL_AUTH_SECRET, 'requests operator log');
  const logQuery = operatorLogQuery(LOG, cursors);
  router.get('/v1/operator/requests/log', async (req, res) => {
    operatorAccountOf(req);
    const filters = parseInput(logQuery, req.query, 'query');
    const { rows, next_cursor } = await operatorLogPage(deps.db, LOG, cursors, filters);
    const method = "Read from the requests service's operator log.";
    res.json(envelope(rows, { returned: rows.length, next_cursor }, { method }));
  });
  return router;
}
