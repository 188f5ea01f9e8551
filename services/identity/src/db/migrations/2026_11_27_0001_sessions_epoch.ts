import type { Kysely } from 'kysely';

/**
 * Frozen. How many times every session of the account was ended at once (a password reset): the
 * gateway keeps a session it vouched for only while the account's count is the one it was told.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('sessions_epoch', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
