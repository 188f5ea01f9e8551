import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database> | Transaction<Database>;
export type AuthorizationRow = Database['authorizations'];

const COLUMNS = [
  'id',
  'account_id',
  'domain_id',
  'attested_by',
  'statement',
  'scope',
  'created_at',
  'expires_at',
  'revoked_at',
] as const;

/** The domain's authorization that is neither revoked nor expired at `now`. */
export async function activeAuthorization(
  db: Db,
  domainId: string,
  now: Date,
): Promise<AuthorizationRow | undefined> {
  return db
    .selectFrom('authorizations')
    .select(COLUMNS)
    .where('domain_id', '=', domainId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Replaces the domain's live authorization (revoked at `now`) with a new one, in `trx`. */
export async function replaceAuthorization(trx: Transaction<Database>, row: AuthorizationRow): Promise<void> {
  await trx
    .updateTable('authorizations')
    .set({ revoked_at: row.created_at })
    .where('domain_id', '=', row.domain_id)
    .where('revoked_at', 'is', null)
    .execute();
  await trx
    .insertInto('authorizations')
    .values({ ...row, scope: JSON.stringify(row.scope) } as never)
    .execute();
}

/** Revokes the domain's active authorization; undefined when none was active. */
export async function revokeAuthorization(
  db: Db,
  domainId: string,
  now: Date,
): Promise<AuthorizationRow | undefined> {
  return db
    .updateTable('authorizations')
    .set({ revoked_at: now })
    .where('domain_id', '=', domainId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(COLUMNS)
    .executeTakeFirst();
}
