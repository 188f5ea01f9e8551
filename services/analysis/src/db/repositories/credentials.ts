import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database> | Transaction<Database>;
export type CredentialRow = Database['credentials'];

const COLUMNS = [
  'id',
  'account_id',
  'domain_id',
  'kind',
  'label',
  'username',
  'login_url',
  'secret_sealed',
  'created_at',
] as const;

export async function insertCredential(db: Db, row: CredentialRow): Promise<void> {
  await db.insertInto('credentials').values(row).execute();
}

export async function credentialsOf(db: Db, accountId: string, domainId?: string): Promise<CredentialRow[]> {
  let query = db.selectFrom('credentials').select(COLUMNS).where('account_id', '=', accountId);
  if (domainId) query = query.where('domain_id', '=', domainId);
  return query.orderBy('created_at', 'asc').execute();
}

/** Deletes the account's credential; false when it has none of that id. */
export async function deleteCredential(db: Db, accountId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('credentials')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
