import type { Kysely } from 'kysely';

/**
 * Frozen. When a session last passed the second factor (a sign-in answered with a TOTP code, or a
 * step-up): operator routes want it recent, not merely TOTP active on the account.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('second_factor_at', 'timestamptz').execute();
}
