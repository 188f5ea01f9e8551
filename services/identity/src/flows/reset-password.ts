import { ok, refuse, type Result } from '@meridian/contracts';
import { confirmEmail, findAccountById, setPasswordHash } from '../db/repositories/accounts.js';
import { consumeEmailToken, findLiveEmailToken } from '../db/repositories/email-tokens.js';
import { clearThrottle } from '../db/repositories/throttle.js';
import { hashToken } from '../domain/secrets.js';
import type { IdentityDeps } from '../deps.js';
import { disownUnproven } from './accounts.js';
import type { WeakPassword } from './outcome.js';
import { hashPassword, weakPassword } from './passwords.js';
import { endEverySession } from './sessions.js';
import { loginEmailScope } from './throttle.js';

const deadLink = () => refuse('invalid_token', 'The reset link is unknown, used or expired.');

/**
 * Sets the password, confirms the address (the mail was read), signs out every session; an
 * account never confirmed is disowned first (flows/accounts.ts). A password the policy refuses
 * leaves the link usable.
 */
export async function resetPassword(
  deps: IdentityDeps,
  input: { token: string; password: string },
): Promise<
  Result<{ password_reset: true; sessions_revoked: number }, 'invalid_token' | WeakPassword['code']>
> {
  const tokenHash = hashToken(input.token);
  const hash = await hashPassword(input.password, deps.config.BCRYPT_COST);
  const holder = await findLiveEmailToken(deps.db, tokenHash, 'reset', new Date());
  const owner = holder ? await findAccountById(deps.db, holder) : undefined;
  if (!owner) return deadLink();
  const weak = weakPassword(input.password, owner.email ?? '');
  if (weak) return weak;
  const done = await deps.db.transaction().execute(async (trx) => {
    const id = await consumeEmailToken(trx, tokenHash, 'reset', new Date());
    const account = id ? await findAccountById(trx, id) : undefined;
    if (!account) return undefined;
    const revoked = await endEverySession(trx, account.id);
    // The mail's reader is the address's proven owner; whoever made the account may not be.
    if (!account.email_confirmed_at) await disownUnproven(trx, account.id);
    await setPasswordHash(trx, account.id, hash);
    await confirmEmail(trx, account.id, new Date());
    return { email: account.email, revoked };
  });
  if (!done) return deadLink();
  if (done.email) await clearThrottle(deps.db, loginEmailScope(done.email));
  return ok({ password_reset: true, sessions_revoked: done.revoked });
}
