import { ok, refuse, type Result } from '@meridian/contracts';
import { confirmEmail, findAccountById, setProvenPassword } from '../db/repositories/accounts.js';
import { consumeEmailToken, findLiveEmailToken } from '../db/repositories/email-tokens.js';
import { deleteLinks } from '../db/repositories/oidc.js';
import { hashToken } from '../domain/secrets.js';
import type { IdentityDeps } from '../deps.js';
import type { WeakPassword } from './outcome.js';
import { hashInTurn, weakPassword } from './passwords.js';

const deadLink = () => refuse('invalid_token', 'The confirmation link is unknown, used or expired.');

/**
 * Confirms the address of the mailed link's token. With a password (the confirmation page asks
 * for one), that password becomes the account's, proven: whoever reads the mail owns the account,
 * not whoever typed a password at sign-up. Without one the sign-up's password stays, unproven
 * (see reset-password.ts). A refused password leaves the link usable.
 *
 * A provider identity linked before the address was proven may be anyone's, and would sign in to
 * the account from now on: it goes when the address is confirmed. None are made any more (links
 * only go to confirmed accounts); this drops links older than that rule.
 */
export async function confirmEmailByToken(
  deps: IdentityDeps,
  input: { token: string; password?: string | undefined },
): Promise<Result<{ email_confirmed: true }, 'invalid_token' | WeakPassword['code']>> {
  const tokenHash = hashToken(input.token);
  let hash: string | undefined;
  if (input.password !== undefined) {
    const holder = await findLiveEmailToken(deps.db, tokenHash, 'confirm', new Date());
    const account = holder ? await findAccountById(deps.db, holder) : undefined;
    if (!account) return deadLink();
    const weak = await weakPassword(input.password, account.email ?? '');
    if (weak) return weak;
    hash = await hashInTurn(deps, input.password);
  }
  const accountId = await deps.db.transaction().execute(async (trx) => {
    const now = new Date();
    const id = await consumeEmailToken(trx, tokenHash, 'confirm', now);
    if (!id) return undefined;
    if (await confirmEmail(trx, id, now)) await deleteLinks(trx, id);
    if (hash) await setProvenPassword(trx, id, hash, now);
    return id;
  });
  return accountId === undefined ? deadLink() : ok({ email_confirmed: true });
}
