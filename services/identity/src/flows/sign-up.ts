import { ok, type Result } from '@meridian/contracts';
import { lockAccountByEmail, setPasswordHash } from '../db/repositories/accounts.js';
import { insertMail } from '../db/repositories/mail-outbox.js';
import { confirmationMail, existingAccountMail } from '../domain/mail.js';
import type { IdentityDeps } from '../deps.js';
import { createAccount, issueEmailToken } from './accounts.js';
import { mustWait, type Wait, type WeakPassword } from './outcome.js';
import { hashInTurn, weakPassword } from './passwords.js';
import { claimMinuteSlot, spendQuota } from './throttle.js';

/**
 * New, unconfirmed and confirmed emails answer alike: the same bcrypt work, the same slot claim
 * and transaction, and SMTP off the answer's path. A new account is mailed its confirmation. An
 * address still unconfirmed takes the newest sign-up's password and gets a fresh link, the older
 * ones void: an earlier sign-up may have been anyone's. The owner of a confirmed account gets a
 * notice, at most once a minute, so repeated sign-ups cannot flood the owner's mailbox. Each client
 * address has a quota of sign-ups per window, counted before any bcrypt work.
 */
export async function signUp(
  deps: IdentityDeps,
  input: { email: string; password: string; clientAddress: string },
): Promise<Result<void, WeakPassword['code']> | Wait> {
  const { email, password } = input;
  const wait = await deps.db.transaction().execute((trx) =>
    spendQuota(trx, `signup:ip:${input.clientAddress}`, {
      limit: deps.config.SIGNUP_ADDRESS_LIMIT,
      windowSeconds: deps.config.SIGNUP_ADDRESS_WINDOW,
    }),
  );
  if (wait > 0) return mustWait('Too many sign-ups from this address; wait before trying again.', wait);
  const weak = await weakPassword(password, email);
  if (weak) return weak;
  const hash = await hashInTurn(deps, password);
  // The resend limit starts now for every address, so a resend's 429 tells nothing either.
  const slotTaken = (await claimMinuteSlot(deps, `resend:${email}`)) > 0;
  const base = deps.config.PUBLIC_BASE_URL;
  await deps.db.transaction().execute(async (trx) => {
    const id = await createAccount(trx, { email, password_hash: hash, email_confirmed_at: null });
    if (id) {
      await insertMail(trx, confirmationMail(email, base, await issueEmailToken(trx, id, 'confirm')));
      return;
    }
    const existing = await lockAccountByEmail(trx, email);
    if (existing && !existing.email_confirmed_at) {
      await setPasswordHash(trx, existing.id, hash);
      await insertMail(
        trx,
        confirmationMail(email, base, await issueEmailToken(trx, existing.id, 'confirm')),
      );
      return;
    }
    if (!slotTaken) await insertMail(trx, existingAccountMail(email, base));
  });
  deps.mail.kick();
  return ok(undefined);
}
