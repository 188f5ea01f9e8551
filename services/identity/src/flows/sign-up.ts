import { ok, type Result } from '@meridian/contracts';
import { insertMail } from '../db/repositories/mail-outbox.js';
import { confirmationMail, existingAccountMail } from '../domain/mail.js';
import type { IdentityDeps } from '../deps.js';
import { createAccount, issueEmailToken } from './accounts.js';
import type { WeakPassword } from './outcome.js';
import { hashPassword, weakPassword } from './passwords.js';
import { claimMinuteSlot } from './throttle.js';

/**
 * New and existing emails answer alike: the same bcrypt work, the same slot claim and
 * transaction, and SMTP off the answer's path. A new account is mailed its confirmation; the
 * owner of an existing one a notice, at most once a minute, so repeated sign-ups cannot flood
 * the owner's mailbox.
 */
export async function signUp(
  deps: IdentityDeps,
  input: { email: string; password: string },
): Promise<Result<void, WeakPassword['code']>> {
  const { email, password } = input;
  const weak = weakPassword(password, email);
  if (weak) return weak;
  const hash = await hashPassword(password, deps.config.BCRYPT_COST);
  // The resend limit starts now for every address, so a resend's 429 tells nothing either.
  const slotTaken = (await claimMinuteSlot(deps, `resend:${email}`)) > 0;
  await deps.db.transaction().execute(async (trx) => {
    const id = await createAccount(trx, { email, password_hash: hash, email_confirmed_at: null });
    if (!id) {
      if (!slotTaken) await insertMail(trx, existingAccountMail(email, deps.config.PUBLIC_BASE_URL));
      return;
    }
    const token = await issueEmailToken(trx, id, 'confirm');
    await insertMail(trx, confirmationMail(email, deps.config.PUBLIC_BASE_URL, token));
  });
  deps.mail.kick();
  return ok(undefined);
}
