import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database>;
type Purpose = Database['email_tokens']['purpose'];

export async function insertEmailToken(
  db: Db,
  row: { token_hash: string; account_id: string; purpose: Purpose; expires_at: Date },
): Promise<void> {
  await db.insertInto('email_tokens').values(row).execute();
}

/** Marks a live token used and answers its account; a used, expired or unknown token answers undefined. */
export async function consumeEmailToken(
  db: Db,
  tokenHash: string,
  purpose: Purpose,
  now: Date,
): Promise<string | undefined> {
  const row = await db
    .updateTable('email_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('account_id')
    .executeTakeFirst();
  return row?.account_id;
}

/** A new reset link voids the older ones of the account. */
export async function voidEmailTokens(db: Db, accountId: string, purpose: Purpose, now: Date): Promise<void> {
  await db
    .updateTable('email_tokens')
    .set({ used_at: now })
    .where('account_id', '=', accountId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
}

/** The account of a live token, without using it up (a refused password leaves the link usable). */
export async function findLiveEmailToken(
  db: Db,
  tokenHash: string,
  purpose: Purpose,
  now: Date,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('email_tokens')
    .select('account_id')
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.account_id;
}
