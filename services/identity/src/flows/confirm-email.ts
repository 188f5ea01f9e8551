import { ok, refuse, type Result } from '@meridian/contracts';
import { confirmEmail } from '../db/repositories/accounts.js';
import { consumeEmailToken } from '../db/repositories/email-tokens.js';
import { deleteLinks } from '../db/repositories/oidc.js';
import { hashToken } from '../domain/secrets.js';
import type { IdentityDeps } from '../deps.js';

/**
 * Confirms the address of the mailed link's token. A provider identity linked before the address
 * was proven may be anyone's, and would sign in to the account from now on: it goes when the
 * address is confirmed. None are made any more (links only go to confirmed accounts); this drops
 * links older than that rule.
 */
export async function confirmEmailByToken(
  deps: IdentityDeps,
  token: string,
): Promise<Result<{ email_confirmed: true }, 'invalid_token'>> {
  const accountId = await deps.db.transaction().execute(async (trx) => {
    const id = await consumeEmailToken(trx, hashToken(token), 'confirm', new Date());
    if (id && (await confirmEmail(trx, id, new Date()))) await deleteLinks(trx, id);
    return id;
  });
  if (accountId === undefined)
    return refuse('invalid_token', 'The confirmation link is unknown, used or expired.');
  return ok({ email_confirmed: true });
}
