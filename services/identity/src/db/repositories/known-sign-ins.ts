import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database>;

/** Whether the account signed in from this browser since `since`. */
export async function isKnownDevice(
  db: Db,
  accountId: string,
  tokenHash: string,
  since: Date,
): Promise<boolean> {
  const row = await db
    .selectFrom('known_devices')
    .select('token_hash')
    .where('account_id', '=', accountId)
    .where('token_hash', '=', tokenHash)
    .where('last_signed_in_at', '>', since)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether the account signed in from this client address since `since`. */
export async function isKnownAddress(
  db: Db,
  accountId: string,
  address: string,
  since: Date,
): Promise<boolean> {
  const row = await db
    .selectFrom('known_addresses')
    .select('address')
    .where('account_id', '=', accountId)
    .where('address', '=', address)
    .where('last_signed_in_at', '>', since)
    .executeTakeFirst();
  return row !== undefined;
}

export async function recordDevice(db: Db, accountId: string, tokenHash: string, at: Date): Promise<void> {
  await db
    .insertInto('known_devices')
    .values({ account_id: accountId, token_hash: tokenHash, last_signed_in_at: at })
    .onConflict((oc) => oc.columns(['account_id', 'token_hash']).doUpdateSet({ last_signed_in_at: at }))
    .execute();
}

export async function recordAddress(db: Db, accountId: string, address: string, at: Date): Promise<void> {
  await db
    .insertInto('known_addresses')
    .values({ account_id: accountId, address, last_signed_in_at: at })
    .onConflict((oc) => oc.columns(['account_id', 'address']).doUpdateSet({ last_signed_in_at: at }))
    .execute();
}

/** Forgets every browser and address the account signed in from. */
export async function forgetSignIns(db: Db, accountId: string): Promise<void> {
  await db.deleteFrom('known_devices').where('account_id', '=', accountId).execute();
  await db.deleteFrom('known_addresses').where('account_id', '=', accountId).execute();
}
