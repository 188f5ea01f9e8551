import type { Kysely } from 'kysely';
import { ok, refuse, type Result } from '@meridian/contracts';
import type { Database } from '../db/database.js';
import { findAccountById, lockAccountById, type AccountRow } from '../db/repositories/accounts.js';
import {
  claimTotpStep,
  insertChallenge,
  replaceRecoveryCodes,
  useRecoveryCode,
} from '../db/repositories/two-factor.js';
import { hashToken, newToken } from '../domain/secrets.js';
import { open } from '@meridian/runtime';
import { acceptedStep, newRecoveryCodes, normaliseRecoveryCode } from '../domain/totp.js';
import type { IdentityDeps } from '../deps.js';
import { mustWait, type Wait } from './outcome.js';
import { clearSecondFactorFailures, recordSecondFactorFailure, secondFactorWait } from './throttle.js';

const CHALLENGE_TTL_MS = 5 * 60 * 1000;
export const CHALLENGE_ATTEMPTS = 5;

/** A second factor: a current TOTP code, or one of the recovery codes. */
export interface Factor {
  code?: string | undefined;
  recovery_code?: string | undefined;
}

export interface Challenge {
  challenge: string;
  challenge_expires_at: string;
}

export const sealContext = (accountId: string) => `totp:${accountId}`;

export const wrongFactor = () => refuse('invalid_code', 'The code is wrong, expired or already used.');
export const secondFactorLocked = (seconds: number) =>
  mustWait('Too many wrong second-factor codes; wait before trying again.', seconds);
export const noAccount = () => refuse('unauthorized', 'A valid session is required.');

/** The second step of a sign-in whose first factor (a password, an OpenID provider) was given. */
export async function startChallenge(
  db: Kysely<Database>,
  accountId: string,
  method: 'password' | 'oidc',
): Promise<Challenge> {
  const token = newToken();
  const expiresAt = new Date(Date.now() + CHALLENGE_TTL_MS);
  await insertChallenge(db, {
    token_hash: hashToken(token),
    account_id: accountId,
    expires_at: expiresAt,
    method,
  });
  return { challenge: token, challenge_expires_at: expiresAt.toISOString() };
}

/** The account of a signed-in caller, row-locked when it is about to change. */
export async function accountOf(
  db: Kysely<Database>,
  accountId: string,
  lock = false,
): Promise<AccountRow | undefined> {
  return lock ? lockAccountById(db, accountId) : findAccountById(db, accountId);
}

/**
 * Runs `change` when the factor is right, under the account's lock and its second-factor limit. A
 * wrong factor is counted (committed, not rolled back) before the refusal.
 */
export async function withActiveFactor<T>(
  deps: IdentityDeps,
  accountId: string,
  factor: Factor,
  change: (trx: Kysely<Database>) => Promise<T>,
): Promise<Result<T, 'unauthorized' | 'conflict' | 'invalid_code'> | Wait> {
  return deps.db
    .transaction()
    .execute(async (trx): Promise<Result<T, 'unauthorized' | 'conflict' | 'invalid_code'> | Wait> => {
      const account = await accountOf(trx, accountId, true);
      if (!account) return noAccount();
      if (account.totp_state !== 'active') return refuse('conflict', 'Two-factor sign-in is not active.');
      const wait = await secondFactorWait(trx, accountId);
      if (wait > 0) return secondFactorLocked(wait);
      if (!(await factorAccepted(deps, trx, account, factor))) {
        await recordSecondFactorFailure(deps, trx, accountId);
        return wrongFactor();
      }
      await clearSecondFactorFailures(trx, accountId);
      return ok(await change(trx));
    });
}

export async function factorAccepted(
  deps: IdentityDeps,
  trx: Kysely<Database>,
  account: AccountRow,
  factor: Factor,
): Promise<boolean> {
  if (factor.code !== undefined) return totpAccepted(deps, trx, account, factor.code);
  const hash = hashToken(normaliseRecoveryCode(factor.recovery_code ?? ''));
  return useRecoveryCode(trx, account.id, hash, new Date());
}

/** A valid code of a step later than the last one accepted; the step is recorded, so it works once. */
export async function totpAccepted(
  deps: IdentityDeps,
  trx: Kysely<Database>,
  account: AccountRow,
  code: string,
): Promise<boolean> {
  if (!account.totp_secret_sealed) return false;
  const secret = open(deps.totpKey, account.totp_secret_sealed, sealContext(account.id));
  const step = await acceptedStep(
    secret,
    code,
    account.totp_last_step === null ? null : Number(account.totp_last_step),
  );
  return step !== undefined && (await claimTotpStep(trx, account.id, step));
}

export async function freshRecoveryCodes(trx: Kysely<Database>, accountId: string): Promise<string[]> {
  const codes = newRecoveryCodes();
  await replaceRecoveryCodes(
    trx,
    accountId,
    codes.map((c) => hashToken(normaliseRecoveryCode(c))),
  );
  return codes;
}
