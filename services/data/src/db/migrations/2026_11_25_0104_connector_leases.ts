import { sql, type Kysely } from 'kysely';

/**
 * Frozen. Which replica polls which live upstream (INGEST_MODE=live): one row per connector, held by
 * one process until `expires_at`; renewed at each poll, taken over by another replica once it lapses.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('connector_leases')
    .addColumn('connector', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('taken_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}
