import { ok, type Result } from '@meridian/contracts';
import { findAccountByEmail } from '../db/repositories/accounts.js';
import { insertMail } from '../db/repositories/mail-outbox.js';
import { resetMail } from '../domain/mail.js';
import type { IdentityDeps } from '../deps.js';
import { issueEmailToken } from './accounts.js';
import { claimMinuteSlot } from './throttle.js';

/**
 * Mails a reset link to the owner of a known address. Silently one reset mail a minute per
 * address, against mail bombing; the answer never changes, known address or not.
 */
export async function requestReset(deps: IdentityDeps, email: string): Promise<Result<void, never>> {
  if ((await claimMinuteSlot(deps, `forgot:${email}`)) > 0) return ok(undefined);
  await deps.db.transaction().execute(async (trx) => {
    const account = await findAccountByEmail(trx, email);
    if (!account) return;
    const token = await issueEmailToken(trx, account.id, 'reset');
    await insertMail(trx, resetMail(email, deps.config.PUBLIC_BASE_URL, token));
  });
  deps.mail.kick();
  return ok(undefined);
}
