import { Router } from 'express';
import {
  analysisDomainBodySchema,
  analysisDomainQuerySchema,
  auditAuthorizeBodySchema,
} from '@meridian/contracts';
import { envelope, parseInput, parseQuery, sessionAccountOf } from '@meridian/http-kit';
import type { AnalysisDeps } from '../deps.js';
import { authorize, readAuthorization, revoke } from '../flows/authorize.js';
import { METHOD, valueOf } from './answer.js';

/** Active-testing authorization (portal 3, 4.4): 201 authorized, 400, 404. */
export function auditRoutes(deps: AnalysisDeps): Router {
  const router = Router();
  router.post('/v1/audit/authorize', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const body = parseInput(auditAuthorizeBodySchema, req.body);
    res.status(201).json(envelope(valueOf(await authorize(deps, accountId, body)), {}, { method: METHOD }));
  });
  router.get('/v1/audit/authorization', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const query = parseQuery(analysisDomainQuerySchema, req.query);
    res.json(
      envelope(valueOf(await readAuthorization(deps, accountId, query.domain)), {}, { method: METHOD }),
    );
  });
  router.post('/v1/audit/authorization/revoke', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const body = parseInput(analysisDomainBodySchema, req.body);
    res.json(envelope(valueOf(await revoke(deps, accountId, body.domain)), {}, { method: METHOD }));
  });
  return router;
}
