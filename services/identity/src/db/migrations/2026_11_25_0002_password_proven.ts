import type { Kysely } from 'kysely';

/**
 * Frozen. When the account's password was set by someone who proved the mailbox in the same step
 * (the confirmation page, a reset); null while it is only what a sign-up chose, which anyone
 * could have typed for somebody else's address.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('password_proven_at', 'timestamptz').execute();
}
