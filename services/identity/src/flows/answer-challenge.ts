import { ok, refuse, type Result } from '@meridian/contracts';
import { countChallengeAttempt, lockChallenge, markChallengeUsed } from '../db/repositories/two-factor.js';
import { hashToken } from '../domain/secrets.js';
import type { IdentityDeps } from '../deps.js';
import type { Wait } from './outcome.js';
import {
  accountOf,
  CHALLENGE_ATTEMPTS,
  factorAccepted,
  secondFactorLocked,
  wrongFactor,
  type Factor,
} from './second-factor.js';
import { rememberSignIn, type SignInPlace } from './known-sign-ins.js';
import { startSession, type NewSession } from './sessions.js';
import {
  clearSecondFactorFailures,
  clearLoginThrottle,
  recordSecondFactorFailure,
  secondFactorWait,
} from './throttle.js';

/** A completed sign-in: the session, and the device token its browser keeps (known-sign-ins.ts). */
export interface SignedIn {
  session: NewSession;
  device: string;
}

/**
 * Completes a login challenge with a second factor; five wrong answers burn it, and the person
 * signs in again.
 */
export async function answerChallenge(
  deps: IdentityDeps,
  challengeToken: string,
  factor: Factor,
  place: SignInPlace,
): Promise<Result<SignedIn, 'invalid_code' | 'challenge_expired'> | Wait> {
  return deps.db
    .transaction()
    .execute(async (trx): Promise<Result<SignedIn, 'invalid_code' | 'challenge_expired'> | Wait> => {
      const now = new Date();
      const challenge = await lockChallenge(trx, hashToken(challengeToken), now);
      const account = challenge && (await accountOf(trx, challenge.account_id, true));
      if (!challenge || challenge.attempts >= CHALLENGE_ATTEMPTS || !account)
        return refuse(
          'challenge_expired',
          'The sign-in challenge is unknown, used or expired; sign in again.',
        );
      const wait = await secondFactorWait(trx, account.id);
      if (wait > 0) return secondFactorLocked(wait);
      // Counted before the check, under the challenge's lock: parallel answers take turns.
      await countChallengeAttempt(trx, challenge.token_hash);
      if (account.totp_state !== 'active' || !(await factorAccepted(deps, trx, account, factor))) {
        await recordSecondFactorFailure(deps, trx, account.id);
        return wrongFactor();
      }
      await clearSecondFactorFailures(trx, account.id);
      // Only now has the whole sign-in succeeded: the email's failed-password count may go.
      if (account.email) await clearLoginThrottle(trx, account.email);
      await markChallengeUsed(trx, challenge.token_hash, now);
      return ok({
        // A recovery code lets the owner in, but only a current code counts as a passed second factor.
        session: await startSession(trx, deps, account.id, challenge.method, factor.code !== undefined),
        device: await rememberSignIn(trx, account.id, place),
      });
    });
}
