import { Router } from 'express';
import {
  analysisCredentialBodySchema,
  analysisCredentialIdQuerySchema,
  analysisCredentialsQuerySchema,
} from '@meridian/contracts';
import { envelope, parseInput, parseQuery, sessionAccountOf } from '@meridian/http-kit';
import type { AnalysisDeps } from '../deps.js';
import { addCredential, listCredentials, removeCredential } from '../flows/credentials.js';
import { METHOD, valueOf } from './answer.js';

/** GET, POST, DELETE /v1/analysis/credentials (portal 4.3): owner-gated; a secret never comes back. */
export function credentialRoutes(deps: AnalysisDeps): Router {
  const router = Router();
  router.get('/v1/analysis/credentials', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const query = parseQuery(analysisCredentialsQuerySchema, req.query);
    res.json(envelope(valueOf(await listCredentials(deps, accountId, query.domain)), {}, { method: METHOD }));
  });
  router.post('/v1/analysis/credentials', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const body = parseInput(analysisCredentialBodySchema, req.body);
    res
      .status(201)
      .json(envelope(valueOf(await addCredential(deps, accountId, body)), {}, { method: METHOD }));
  });
  router.delete('/v1/analysis/credentials', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const { id } = parseQuery(analysisCredentialIdQuerySchema, req.query);
    valueOf(await removeCredential(deps, accountId, id));
    res.status(204).end();
  });
  return router;
}
