import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database>;

export async function insertApiKey(
  db: Db,
  row: {
    id: string;
    account_id: string;
    prefix: string;
    salt: string;
    secret_hash: string;
    created_at: Date;
  },
): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export function listApiKeys(db: Db, accountId: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'prefix', 'created_at', 'last_used_at', 'revoked_at'])
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .execute();
}

export async function countLiveKeys(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** When the account's keys revoked since `since` were revoked, newest first, at most `limit`. */
export async function latestRevocations(
  db: Db,
  accountId: string,
  since: Date,
  limit: number,
): Promise<Date[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select('revoked_at')
    .where('account_id', '=', accountId)
    .where('revoked_at', '>', since)
    .orderBy('revoked_at', 'desc')
    .limit(limit)
    .execute();
  return rows.flatMap((row) => (row.revoked_at ? [row.revoked_at] : []));
}

/** The key of an id with its account's plan: the one lookup behind the gateway's key check. */
export function findKeyForVerify(db: Db, id: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select([
      'api_keys.id',
      'api_keys.account_id',
      'api_keys.salt',
      'api_keys.secret_hash',
      'api_keys.revoked_at',
      'api_keys.last_used_at',
      'accounts.plan',
    ])
    .where('api_keys.id', '=', id)
    .executeTakeFirst();
}

export function findOwnedKey(db: Db, accountId: string, id: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'prefix', 'created_at', 'last_used_at', 'revoked_at'])
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .forUpdate()
    .executeTakeFirst();
}

export async function markKeyRevoked(db: Db, id: string, at: Date): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).execute();
}

export async function markKeyUsed(db: Db, id: string, at: Date): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}

/** Revokes every live key of the account; answers their ids. */
export async function revokeAllKeys(db: Db, accountId: string, at: Date): Promise<string[]> {
  const rows = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}
