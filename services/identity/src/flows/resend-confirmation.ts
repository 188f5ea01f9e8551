import { ok, type Result } from '@meridian/contracts';
import { findAccountByEmail } from '../db/repositories/accounts.js';
import { insertMail } from '../db/repositories/mail-outbox.js';
import { confirmationMail } from '../domain/mail.js';
import type { IdentityDeps } from '../deps.js';
import { issueEmailToken } from './accounts.js';
import { mustWait, type Wait } from './outcome.js';
import { claimMinuteSlot } from './throttle.js';

/** One confirmation mail per minute per address; the wait is told for unknown addresses too. */
export async function resendConfirmation(
  deps: IdentityDeps,
  email: string,
): Promise<Result<void, Wait['code']> | Wait> {
  const wait = await claimMinuteSlot(deps, `resend:${email}`);
  if (wait > 0) return mustWait('A confirmation mail was sent less than a minute ago.', wait);
  await deps.db.transaction().execute(async (trx) => {
    const account = await findAccountByEmail(trx, email);
    if (!account || account.email_confirmed_at) return;
    const token = await issueEmailToken(trx, account.id, 'confirm');
    await insertMail(trx, confirmationMail(email, deps.config.PUBLIC_BASE_URL, token));
  });
  deps.mail.kick();
  return ok(undefined);
}
