import type { Kysely } from 'kysely';

/**
 * Frozen. The per-account confirmation slot was never read: the once-a-minute mail limit is kept
 * per address in login_throttle, for unknown addresses too.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('confirmation_sent_at').execute();
}
