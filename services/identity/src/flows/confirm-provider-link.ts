import { ok, refuse, type Result } from '@meridian/contracts';
import { lockAccountById } from '../db/repositories/accounts.js';
import { consumeLinkOffer } from '../db/repositories/oidc.js';
import { hashToken } from '../domain/secrets.js';
import type { IdentityDeps } from '../deps.js';
import { disownUnproven, isUnproven } from './accounts.js';
import { linkAndTell } from './provider-links.js';

/**
 * The owner's consent from the mailed link: the provider identity is linked to the account. An
 * account whose password only a sign-up chose is disowned first, as a reset would: the mailbox's
 * reader is its proven owner, whoever chose that password may not be.
 */
export async function confirmProviderLink(
  deps: IdentityDeps,
  token: string,
): Promise<Result<{ linked: true }, 'invalid_token' | 'conflict'>> {
  const outcome = await deps.db.transaction().execute(async (trx) => {
    const offer = await consumeLinkOffer(trx, hashToken(token), new Date());
    const account = offer && (await lockAccountById(trx, offer.account_id));
    if (!offer || !account) return 'dead' as const;
    if (isUnproven(account)) await disownUnproven(trx, account.id);
    return (await linkAndTell(trx, deps, account.id, offer)) ? ('linked' as const) : ('taken' as const);
  });
  if (outcome === 'dead')
    return refuse('invalid_token', 'The link confirmation is unknown, used or expired.');
  if (outcome === 'taken')
    return refuse('conflict', 'This provider identity is linked already; unlink it from its account first.');
  deps.mail.kick();
  return ok({ linked: true });
}
