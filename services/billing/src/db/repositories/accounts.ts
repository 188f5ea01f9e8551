import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database> | Transaction<Database>;

export async function isKnownAccount(db: Db, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom('accounts')
    .select('account_id')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Records an account once; a second record of it (the event after identity's answer) changes nothing. */
export async function recordAccount(
  db: Db,
  account: { account_id: string; created_at: Date | null; recorded_at: Date },
): Promise<void> {
  await db
    .insertInto('accounts')
    .values(account)
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
}
