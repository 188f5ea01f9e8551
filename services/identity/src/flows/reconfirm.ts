import { ok, refuse, type Result } from '@meridian/contracts';
import type { AccountRow } from '../db/repositories/accounts.js';
import { liveSessionStart } from '../db/repositories/sessions.js';
import type { IdentityDeps } from '../deps.js';
import { trustOf, type SignInPlace } from './known-sign-ins.js';
import { mustWait, type Wait } from './outcome.js';
import { passwordMatches } from './passwords.js';
import { claimLoginAttempt, loginScopes, passwordAccepted } from './throttle.js';

/** How recent a sign-in must be to stand for the password of an account that has none. */
const FRESH_SIGN_IN_MS = 5 * 60 * 1000;

export interface Reconfirmation {
  password?: string | undefined;
  session_id: string;
  place: SignInPlace;
}

/**
 * A signed-in person proves again that they are the account's owner before a change a stolen
 * session must not make (turning TOTP on). With a password: that password, counted by the very
 * counters of a sign-in (a guess here is a guess there) and checked with the same bcrypt. Without
 * one (an account of an OpenID provider only): a session started within FRESH_SIGN_IN_MS.
 */
export async function reconfirmOwner(
  deps: IdentityDeps,
  account: AccountRow,
  input: Reconfirmation,
  now = new Date(),
): Promise<Result<true, 'wrong_password' | 'reauthentication_required'> | Wait> {
  if (!account.password_hash) {
    const started = await liveSessionStart(deps.db, account.id, input.session_id);
    if (started && now.getTime() - started.getTime() <= FRESH_SIGN_IN_MS) return ok(true);
    return refuse(
      'reauthentication_required',
      'This account has no password: sign in again with your provider, then do this within 5 minutes.',
    );
  }
  if (input.password === undefined)
    return refuse('wrong_password', 'Confirm with your password: the body needs {password}.');
  const email = account.email ?? account.id;
  const scopes = loginScopes(email, input.place.address, await trustOf(deps.db, account.id, input.place));
  const attempt = await claimLoginAttempt(deps, scopes);
  if (attempt.wait > 0) return mustWait('Too many wrong passwords; wait before trying again.', attempt.wait);
  if (!(await passwordMatches(input.password, account.password_hash, deps.config.BCRYPT_COST)))
    return refuse('wrong_password', 'The password is wrong.');
  await passwordAccepted(deps, scopes, false);
  return ok(true);
}
