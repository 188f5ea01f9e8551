import type { Kysely } from 'kysely';
import type { Database } from '../database.js';
import type { TwoFactorState } from '../../domain/totp.js';

type Db = Kysely<Database>;

export async function setTwoFactor(
  db: Db,
  accountId: string,
  values: { totp_state: TwoFactorState; totp_secret_sealed: string | null; totp_last_step?: number | null },
): Promise<void> {
  await db.updateTable('accounts').set(values).where('id', '=', accountId).execute();
}

/** Records the step of an accepted code; false when that step (or a later one) was already used. */
export async function claimTotpStep(db: Db, accountId: string, step: number): Promise<boolean> {
  const row = await db
    .updateTable('accounts')
    .set({ totp_last_step: step })
    .where('id', '=', accountId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function replaceRecoveryCodes(db: Db, accountId: string, hashes: string[]): Promise<void> {
  await db.deleteFrom('recovery_codes').where('account_id', '=', accountId).execute();
  if (hashes.length === 0) return;
  await db
    .insertInto('recovery_codes')
    .values(hashes.map((code_hash) => ({ account_id: accountId, code_hash, used_at: null })))
    .execute();
}

export async function useRecoveryCode(db: Db, accountId: string, hash: string, at: Date): Promise<boolean> {
  const row = await db
    .updateTable('recovery_codes')
    .set({ used_at: at })
    .where('account_id', '=', accountId)
    .where('code_hash', '=', hash)
    .where('used_at', 'is', null)
    .returning('code_hash')
    .executeTakeFirst();
  return row !== undefined;
}

export async function countUnusedRecoveryCodes(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertChallenge(
  db: Db,
  row: { token_hash: string; account_id: string; expires_at: Date; method: 'password' | 'oidc' },
) {
  await db.insertInto('login_challenges').values(row).execute();
}

/** A live challenge, locked for the attempt. */
export function lockChallenge(db: Db, tokenHash: string, now: Date) {
  return db
    .selectFrom('login_challenges')
    .select(['token_hash', 'account_id', 'attempts', 'method'])
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .forUpdate()
    .executeTakeFirst();
}

/** Counts an answer before it is checked, in the transaction that locked the challenge. */
export async function countChallengeAttempt(db: Db, tokenHash: string) {
  await db
    .updateTable('login_challenges')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('token_hash', '=', tokenHash)
    .execute();
}

export async function markChallengeUsed(db: Db, tokenHash: string, at: Date) {
  await db.updateTable('login_challenges').set({ used_at: at }).where('token_hash', '=', tokenHash).execute();
}
