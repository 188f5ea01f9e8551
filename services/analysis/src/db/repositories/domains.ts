import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database> | Transaction<Database>;
export type DomainRow = Database['domains'];

const COLUMNS = ['id', 'account_id', 'hostname', 'token', 'created_at', 'verified_at', 'checked_at'] as const;

/** Adds the domain, or answers the account's existing row for the same hostname. */
export async function ensureDomain(db: Db, row: DomainRow): Promise<{ row: DomainRow; created: boolean }> {
  const inserted = await db
    .insertInto('domains')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'hostname']).doNothing())
    .returning(COLUMNS)
    .executeTakeFirst();
  if (inserted) return { row: inserted, created: true };
  return { row: (await domainOf(db, row.account_id, row.hostname))!, created: false };
}

export async function domainsOf(db: Db, accountId: string): Promise<DomainRow[]> {
  return db
    .selectFrom('domains')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'asc')
    .execute();
}

/** The account's row for a hostname; another account's is never found. */
export async function domainOf(db: Db, accountId: string, hostname: string): Promise<DomainRow | undefined> {
  return db
    .selectFrom('domains')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('hostname', '=', hostname)
    .executeTakeFirst();
}

export async function domainById(db: Db, id: string): Promise<DomainRow | undefined> {
  return db.selectFrom('domains').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** Records a check: verified (kept from the first proof) or not (a record removed un-verifies). */
export async function recordCheck(db: Db, id: string, proved: boolean, at: Date): Promise<DomainRow> {
  return db
    .updateTable('domains')
    .set((eb) => ({
      checked_at: at,
      verified_at: proved ? eb.fn.coalesce('verified_at', eb.val(at)) : null,
    }))
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}
