import { ok, refuse, type Result } from '@meridian/contracts';
import { findAccountById } from '../db/repositories/accounts.js';
import { consumeEmailToken } from '../db/repositories/email-tokens.js';
import { hashToken } from '../domain/secrets.js';
import type { IdentityDeps } from '../deps.js';
import { clearLoginThrottle } from './throttle.js';

/**
 * The mailed unlock link: whoever reads the mail owns the address, so the email's sign-in waits
 * (its own backoff and that of every client address) are lifted. The password is untouched.
 */
export async function unlockSignIn(
  deps: IdentityDeps,
  token: string,
): Promise<Result<{ unlocked: true }, 'invalid_token'>> {
  const email = await deps.db.transaction().execute(async (trx) => {
    const id = await consumeEmailToken(trx, hashToken(token), 'unlock', new Date());
    const account = id ? await findAccountById(trx, id) : undefined;
    if (account?.email) await clearLoginThrottle(trx, account.email);
    return account?.email;
  });
  if (!email) return refuse('invalid_token', 'The unlock link is unknown, used or expired.');
  return ok({ unlocked: true });
}
