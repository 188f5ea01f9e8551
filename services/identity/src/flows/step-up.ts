import { ok, refuse } from '@meridian/contracts';
import { markSecondFactorPassed } from '../db/repositories/sessions.js';
import type { IdentityDeps } from '../deps.js';
import { withActiveFactor } from './second-factor.js';

/**
 * A signed-in session passes the second factor again (operator routes want it within 15 minutes):
 * a current TOTP code, checked under the account's lock and the same limit of wrong second factors
 * as a sign-in's challenge. A recovery code does not step up.
 */
export async function stepUp(deps: IdentityDeps, accountId: string, sessionId: string, code: string) {
  const now = new Date();
  const passed = await withActiveFactor(deps, accountId, { code }, (trx) =>
    markSecondFactorPassed(trx, accountId, sessionId, now),
  );
  if (!passed.ok) return passed;
  if (!passed.value) return refuse('unauthorized', 'The session is no longer live; sign in again.');
  return ok({ second_factor_at: now.toISOString() });
}
