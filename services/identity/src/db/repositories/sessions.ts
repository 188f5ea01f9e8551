import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database>;

export async function insertSession(db: Db, row: Database['sessions']): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

/** The session of a token with its account's plan, role and TOTP state, in one indexed lookup. */
export function findSessionByTokenHash(db: Db, tokenHash: string) {
  return db
    .selectFrom('sessions')
    .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
    .leftJoin('operator_roles', 'operator_roles.account_id', 'sessions.account_id')
    .select([
      'accounts.totp_state',
      'operator_roles.granted_at as operator_since',
      'sessions.id',
      'sessions.account_id',
      'sessions.created_at',
      'sessions.last_seen_at',
      'sessions.expires_at',
      'sessions.revoked_at',
      'sessions.second_factor_at',
      'accounts.plan',
      'accounts.sessions_epoch',
    ])
    .where('sessions.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** When a live session of the account started; undefined when it is not one. */
export async function liveSessionStart(db: Db, accountId: string, id: string): Promise<Date | undefined> {
  const row = await db
    .selectFrom('sessions')
    .select('created_at')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row?.created_at;
}

/** Records that a live session of the account passed the second factor; answers whether it was live. */
export async function markSecondFactorPassed(
  db: Db,
  accountId: string,
  id: string,
  at: Date,
): Promise<boolean> {
  const row = await db
    .updateTable('sessions')
    .set({ second_factor_at: at })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function touchSession(db: Db, id: string, at: Date): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
}

/** Revokes one session of the account; answers whether it was live. */
export async function revokeSession(db: Db, accountId: string, id: string, at: Date): Promise<boolean> {
  const row = await db
    .updateTable('sessions')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Revokes every live session of the account; answers their ids. */
/** Counts one more ending of every session of the account; answers the new count. */
export async function bumpSessionsEpoch(db: Db, accountId: string): Promise<number> {
  const row = await db
    .updateTable('accounts')
    .set((eb) => ({ sessions_epoch: eb('sessions_epoch', '+', 1) }))
    .where('id', '=', accountId)
    .returning('sessions_epoch')
    .executeTakeFirstOrThrow();
  return row.sessions_epoch;
}

export async function revokeAllSessions(db: Db, accountId: string, at: Date): Promise<string[]> {
  const rows = await db
    .updateTable('sessions')
    .set({ revoked_at: at })
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}
