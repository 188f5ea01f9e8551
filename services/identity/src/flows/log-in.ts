import { ok, refuse, type Result } from '@meridian/contracts';
import { findAccountByEmail } from '../db/repositories/accounts.js';
import { insertMail } from '../db/repositories/mail-outbox.js';
import { unlockMail } from '../domain/mail.js';
import type { IdentityDeps } from '../deps.js';
import { mustWait, type Wait } from './outcome.js';
import { passwordMatches } from './passwords.js';
import { startSession, type NewSession } from './sessions.js';
import { claimLoginAttempt, claimMinuteSlotIn, loginScopes, passwordAccepted } from './throttle.js';
import { issueEmailToken } from './accounts.js';
import { startChallenge, type Challenge } from './second-factor.js';
import { rememberSignIn, trustOf, type SignInPlace } from './known-sign-ins.js';

export type LogInOutcome =
  | { two_factor_required: false; account_id: string; session: NewSession; device: string }
  | { two_factor_required: true; challenge: Challenge };

/**
 * Sign-in with email and password. The attempt is counted before bcrypt runs (flows/throttle.ts);
 * an unknown email costs the same bcrypt time as a wrong password, and `email_unconfirmed` is only
 * told to someone who gave the right password. An attempt from a browser or address the account
 * signed in from before meets its own counters instead of the email-wide one (known-sign-ins.ts).
 */
export async function logIn(
  deps: IdentityDeps,
  input: { email: string; password: string; place: SignInPlace },
): Promise<Result<LogInOutcome, 'invalid_credentials' | 'email_unconfirmed'> | Wait> {
  const { email, password, place } = input;
  const known = await findAccountByEmail(deps.db, email);
  const scopes = loginScopes(
    email,
    place.address,
    known ? await trustOf(deps.db, known.id, place) : undefined,
  );
  const attempt = await claimLoginAttempt(deps, scopes);
  if (attempt.wait > 0) {
    if (attempt.emailHeld) await offerUnlock(deps, email);
    return mustWait('Too many failed sign-ins; wait before trying again.', attempt.wait);
  }
  // Read again after the wait: the account may have changed meanwhile.
  const account = await findAccountByEmail(deps.db, email);
  if (!(await passwordMatches(password, account?.password_hash, deps.config.BCRYPT_COST)) || !account) {
    // The failure was counted before the check.
    deps.logger.info({ account_id: account?.id ?? null }, 'sign-in refused: wrong credentials');
    return refuse('invalid_credentials', 'The email or the password is wrong.');
  }
  // With TOTP on, the email's failure count stays until the second factor passes.
  const complete = account.email_confirmed_at !== null && account.totp_state !== 'active';
  await passwordAccepted(deps, scopes, complete);
  if (!account.email_confirmed_at)
    return refuse('email_unconfirmed', 'Confirm your email address before signing in.');
  if (account.totp_state === 'active')
    return ok({
      two_factor_required: true,
      challenge: await startChallenge(deps.db, account.id, 'password'),
    });
  const { session, device } = await deps.db.transaction().execute(async (trx) => ({
    session: await startSession(trx, deps, account.id, 'password'),
    device: await rememberSignIn(trx, account.id, place),
  }));
  deps.logger.info({ account_id: account.id, session_id: session.session_id }, 'signed in');
  return ok({ two_factor_required: false, account_id: account.id, session, device });
}

/**
 * The email's own backoff holds sign-ins back, which anyone can cause from many addresses: its
 * owner is mailed a link that lifts it (unlock-sign-in.ts), at most once per LOGIN_LOCK_SECONDS.
 * Nothing is mailed for an unknown address, and the answer is the same 429 either way.
 */
async function offerUnlock(deps: IdentityDeps, email: string): Promise<void> {
  const mailed = await deps.db.transaction().execute(async (trx) => {
    const account = await findAccountByEmail(trx, email);
    if (!account) return false;
    if ((await claimMinuteSlotIn(trx, `unlock:${email}`, deps.config.LOGIN_LOCK_SECONDS)) > 0) return false;
    const token = await issueEmailToken(trx, account.id, 'unlock');
    await insertMail(trx, unlockMail(email, deps.config.PUBLIC_BASE_URL, token));
    return true;
  });
  if (mailed) deps.mail.kick();
}
