import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { EVENTS } from '@meridian/contracts';
import type { Database } from '../db/database.js';
import { insertAccount, setPasswordHash } from '../db/repositories/accounts.js';
import { revokeAllKeys } from '../db/repositories/api-keys.js';
import { insertEmailToken, voidEmailTokens } from '../db/repositories/email-tokens.js';
import { forgetSignIns } from '../db/repositories/known-sign-ins.js';
import { deleteLinks } from '../db/repositories/oidc.js';
import { replaceRecoveryCodes, setTwoFactor } from '../db/repositories/two-factor.js';
import { hashToken, newToken } from '../domain/secrets.js';
import { announce } from './events.js';
import { endEverySession } from './sessions.js';

const LINK_TTL_MS = {
  confirm: 24 * 3600 * 1000,
  reset: 30 * 60 * 1000,
  unlock: 24 * 3600 * 1000,
} as const;

/** Creates the account and announces it; undefined when the email is taken. */
export async function createAccount(
  trx: Kysely<Database>,
  row: { email: string | null; password_hash: string | null; email_confirmed_at: Date | null },
): Promise<string | undefined> {
  const id = await insertAccount(trx, { id: randomUUID(), ...row });
  if (!id) return undefined;
  await announce(trx, EVENTS.identityAccountCreated, {
    account_id: id,
    plan: 'free',
    created_at: new Date().toISOString(),
  });
  return id;
}

/** A fresh single-use link token; older ones of the same purpose stop working. Answers the raw token. */
export async function issueEmailToken(
  trx: Kysely<Database>,
  accountId: string,
  purpose: keyof typeof LINK_TTL_MS,
): Promise<string> {
  const now = new Date();
  await voidEmailTokens(trx, accountId, purpose, now);
  const token = newToken();
  const ttl = LINK_TTL_MS[purpose];
  await insertEmailToken(trx, {
    token_hash: hashToken(token),
    account_id: accountId,
    purpose,
    expires_at: new Date(now.getTime() + ttl),
  });
  return token;
}

/**
 * An account whose email was never confirmed, or whose password only a sign-up chose, was never
 * proven to belong to whoever chose that password, who may be someone squatting the address.
 * Before the address's proven owner takes it over (an identity provider vouching for the email,
 * or a password reset through the mailed link), everything the creator could have set goes: the password, any provider identity linked to it, the sessions,
 * the keys and the second factor, each revocation announced.
 */
export function isUnproven(account: {
  email_confirmed_at: Date | null;
  password_hash: string | null;
  password_proven_at: Date | null;
}): boolean {
  return !account.email_confirmed_at || (account.password_hash !== null && !account.password_proven_at);
}

export async function disownUnproven(trx: Kysely<Database>, accountId: string): Promise<number> {
  await setPasswordHash(trx, accountId, null);
  await deleteLinks(trx, accountId);
  const { epoch } = await endEverySession(trx, accountId);
  await forgetSignIns(trx, accountId);
  await revokeEveryKey(trx, accountId);
  await removeSecondFactor(trx, accountId);
  return epoch;
}

/** Revokes every live key of the account and announces each revocation (the gateways drop them). */
export async function revokeEveryKey(trx: Kysely<Database>, accountId: string): Promise<number> {
  const at = new Date();
  const revoked = await revokeAllKeys(trx, accountId, at);
  for (const keyId of revoked)
    await announce(trx, EVENTS.identityKeyRevoked, {
      key_id: keyId,
      account_id: accountId,
      revoked_at: at.toISOString(),
    });
  return revoked.length;
}

/** Turns TOTP off and drops its recovery codes. */
export async function removeSecondFactor(trx: Kysely<Database>, accountId: string): Promise<void> {
  await setTwoFactor(trx, accountId, { totp_state: 'off', totp_secret_sealed: null, totp_last_step: null });
  await replaceRecoveryCodes(trx, accountId, []);
}
