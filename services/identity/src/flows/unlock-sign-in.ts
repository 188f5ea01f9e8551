import { ok, refuse, type Result } from '@meridian/contracts';
import { findAccountById } from '../db/repositories/accounts.js';
import { consumeEmailToken } from '../db/repositories/email-tokens.js';
import { clearThrottle } from '../db/repositories/throttle.js';
import { hashToken } from '../domain/secrets.js';
import type { IdentityDeps } from '../deps.js';
import { rememberSignIn, type SignInPlace } from './known-sign-ins.js';
import { loginPairScope } from './throttle.js';

/**
 * The mailed unlock link: whoever reads the mail owns the address, so the browser that posts the
 * link becomes known to the account (its sign-ins meet their own counters, not the email-wide
 * lock), and the wait of the address it posts from is lifted. The lock still holds for everyone
 * else; the password is untouched.
 */
export async function unlockSignIn(
  deps: IdentityDeps,
  token: string,
  place: SignInPlace,
): Promise<Result<{ unlocked: true; device: string }, 'invalid_token'>> {
  const device = await deps.db.transaction().execute(async (trx) => {
    const id = await consumeEmailToken(trx, hashToken(token), 'unlock', new Date());
    const account = id ? await findAccountById(trx, id) : undefined;
    if (!account?.email) return undefined;
    await clearThrottle(trx, loginPairScope(account.email, place.address));
    return rememberSignIn(trx, account.id, { device: place.device, address: undefined });
  });
  if (!device) return refuse('invalid_token', 'The unlock link is unknown, used or expired.');
  return ok({ unlocked: true, device });
}
