import type { Kysely } from 'kysely';

/**
 * Frozen. The accounts billing knows, projected from identity's account.created events (and
 * from identity's answer when an account is asked for before its event arrives): every ledger
 * write an operator or a deposit makes names one of them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('account_id', 'uuid', (c) => c.primaryKey())
    .addColumn('created_at', 'timestamptz')
    .addColumn('recorded_at', 'timestamptz', (c) => c.notNull())
    .execute();
}
