import { Router } from 'express';
import { envelope, httpProblem, sessionAccountOf } from '@meridian/http-kit';
import type { IdentityDeps } from '../deps.js';
import { activate, disable, enrol, regenerateRecoveryCodes, twoFactorStatus } from '../flows/two-factor.js';

/**
 * TOTP second factor (portal 4.2). `POST /v1/account/2fa/{id}`: the named steps enrol, activate
 * and disable are routes of their own; `recovery-codes` replaces the recovery codes (needs a
 * current code); any other id answers 404.
 */
export function twoFactorRoutes(deps: IdentityDeps): Router {
  const router = Router();
  router.get('/v1/account/2fa', async (req, res) => {
    res.json(envelope(await twoFactorStatus(deps, sessionAccountOf(req))));
  });
  router.post('/v1/account/2fa/enrol', async (req, res) => {
    res.json(envelope(await enrol(deps, sessionAccountOf(req))));
  });
  router.post('/v1/account/2fa/activate', async (req, res) => {
    res.json(envelope(await activate(deps, sessionAccountOf(req), req.body)));
  });
  router.post('/v1/account/2fa/disable', async (req, res) => {
    res.json(envelope(await disable(deps, sessionAccountOf(req), req.body)));
  });
  router.post('/v1/account/2fa/:id', async (req, res) => {
    const accountId = sessionAccountOf(req);
    if (req.params.id !== 'recovery-codes')
      throw httpProblem(
        'not_found',
        'No such second-factor action; known: enrol, activate, disable, recovery-codes.',
      );
    res.json(envelope(await regenerateRecoveryCodes(deps, accountId, req.body)));
  });
  return router;
}
