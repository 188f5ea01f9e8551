import { Router } from 'express';
import { z } from 'zod';
import { envelope, httpProblem, parseInput, sessionAccountOf } from '@meridian/http-kit';
import type { IdentityDeps } from '../deps.js';
import { activateTotp } from '../flows/activate-totp.js';
import { disableTotp } from '../flows/disable-totp.js';
import { enrolTotp } from '../flows/enrol-totp.js';
import { regenerateRecoveryCodes } from '../flows/regenerate-recovery-codes.js';
import { stepUp } from '../flows/step-up.js';
import { twoFactorStatus } from '../flows/two-factor-status.js';
import { valueOf } from './answer.js';
import { factorInput } from './auth.js';
import { signInPlaceOf } from './cookies.js';

const codeInput = z.object({ code: z.string().regex(/^\d{6}$/, 'six digits') });
/** The account's password; an account without one (OpenID provider only) sends none. */
const enrolInput = z.object({ password: z.string().min(1).max(1024).optional() });

/**
 * TOTP second factor (portal 4.2). `POST /v1/account/2fa/{id}`: the named steps enrol, activate
 * and disable are routes of their own; `recovery-codes` replaces the recovery codes (needs a
 * current code); any other id answers 404.
 */
export function twoFactorRoutes(deps: IdentityDeps): Router {
  const router = Router();
  router.get('/v1/account/2fa', async (req, res) => {
    res.json(envelope(valueOf(await twoFactorStatus(deps, sessionAccountOf(req)))));
  });
  router.post('/v1/account/2fa/enrol', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const { password } = parseInput(enrolInput, req.body);
    const owner = { password, session_id: req.caller?.session_id ?? '', place: signInPlaceOf(req) };
    res.json(envelope(valueOf(await enrolTotp(deps, accountId, owner))));
  });
  router.post('/v1/account/2fa/activate', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const { code } = parseInput(codeInput, req.body);
    res.json(envelope(valueOf(await activateTotp(deps, accountId, code))));
  });
  router.post('/v1/account/2fa/disable', async (req, res) => {
    const accountId = sessionAccountOf(req);
    res.json(envelope(valueOf(await disableTotp(deps, accountId, parseInput(factorInput, req.body)))));
  });
  router.post('/v1/account/step-up', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const { code } = parseInput(codeInput, req.body);
    res.json(envelope(valueOf(await stepUp(deps, accountId, req.caller?.session_id ?? '', code))));
  });
  router.post('/v1/account/2fa/:id', async (req, res) => {
    const accountId = sessionAccountOf(req);
    if (req.params.id !== 'recovery-codes')
      throw httpProblem(
        'not_found',
        'No such second-factor action; known: enrol, activate, disable, recovery-codes.',
      );
    const { code } = parseInput(codeInput, req.body);
    res.json(envelope(valueOf(await regenerateRecoveryCodes(deps, accountId, code))));
  });
  return router;
}
