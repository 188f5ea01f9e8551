import { Router } from 'express';
import { z } from 'zod';
import { envelope, parseInput, sessionAccountOf } from '@meridian/http-kit';
import type { IdentityDeps } from '../deps.js';
import { createKey } from '../flows/create-key.js';
import { revokeKey } from '../flows/revoke-key.js';
import { valueOf } from './answer.js';

// Printable ASCII, as every key id is (base62): Postgres refuses a text holding NUL, which must be
// the client's 400, not our 500. A well-formed id of no key of the caller's is a 404.
const keyPath = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII'),
});

export function keyRoutes(deps: IdentityDeps): Router {
  const router = Router();
  router.post('/v1/keys', async (req, res) => {
    const accountId = sessionAccountOf(req);
    res.status(201).json(envelope(valueOf(await createKey(deps, accountId))));
  });
  router.post('/v1/keys/:id/revoke', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const { id } = parseInput(keyPath, req.params, 'path');
    res.json(envelope(valueOf(await revokeKey(deps, accountId, id))));
  });
  return router;
}
