import type { Kysely } from 'kysely';

/** Frozen. How much of a run's price went back (a failed run's whole price, or an undelivered stage's part). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('runs').addColumn('refund_atomic', 'bigint').execute();
}
