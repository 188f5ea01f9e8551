import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../database.js';

/** The operator log's one writer, shared by every service that keeps the table. */
export { insertOperatorAction } from '@meridian/db';

type Db = Kysely<Database> | Transaction<Database>;

/** The account of an email with whether it holds the operator role; undefined for no such email. */
export function findOperatorCandidate(db: Db, email: string) {
  return db
    .selectFrom('accounts')
    .leftJoin('operator_roles', 'operator_roles.account_id', 'accounts.id')
    .select(['accounts.id', 'accounts.email', 'accounts.nickname', 'operator_roles.granted_at'])
    .where('accounts.email', '=', email)
    .executeTakeFirst();
}

/** Holds the roles still until the transaction ends: changes of them take turns. */
export async function lockOperatorRoles(db: Db): Promise<void> {
  await sql`lock table identity.operator_roles in share row exclusive mode`.execute(db);
}

/** How many accounts hold the operator role (the first one is granted with --bootstrap only). */
export async function countOperators(db: Db): Promise<number> {
  const row = await db
    .selectFrom('operator_roles')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Grants the role; answers false when the account held it already. */
export async function grantOperatorRole(db: Db, accountId: string, by: string, at: Date): Promise<boolean> {
  const row = await db
    .insertInto('operator_roles')
    .values({ account_id: accountId, granted_at: at, granted_by: by })
    .onConflict((oc) => oc.column('account_id').doNothing())
    .returning('account_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Takes the role away; answers false when the account did not hold it. */
export async function revokeOperatorRole(db: Db, accountId: string): Promise<boolean> {
  const row = await db
    .deleteFrom('operator_roles')
    .where('account_id', '=', accountId)
    .returning('account_id')
    .executeTakeFirst();
  return row !== undefined;
}

export function listOperators(db: Db) {
  return db
    .selectFrom('operator_roles')
    .innerJoin('accounts', 'accounts.id', 'operator_roles.account_id')
    .select([
      'operator_roles.account_id',
      'accounts.email',
      'accounts.totp_state',
      'operator_roles.granted_at',
      'operator_roles.granted_by',
    ])
    .orderBy('operator_roles.granted_at')
    .execute();
}

export function listOperatorActions(db: Db, limit: number) {
  return db
    .selectFrom('operator_actions')
    .select(['id', 'at', 'actor', 'operator_email', 'action', 'target', 'reason'])
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
