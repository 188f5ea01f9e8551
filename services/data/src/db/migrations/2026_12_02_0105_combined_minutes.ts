import { sql, type Kysely } from 'kysely';

/**
 * Frozen. The combined 1m bars of a base kept as bars arrive, as `combined_rollups` rows of bucket
 * `1m` (the bar, `bars` 1 or 0, and what each market gave that minute), so that a combined 1m page is
 * one range of the primary key instead of every market's bars combined per request. Ingestion writes
 * them in the transaction that writes the hours they roll up into; the combined backfill computes the
 * minutes of hours stored before this migration.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('combined_rollups').dropConstraint('combined_rollups_bucket_check').execute();
  await db.schema
    .alterTable('combined_rollups')
    .addCheckConstraint('combined_rollups_bucket_check', sql`bucket in ('1m', '1h', '1d')`)
    .execute();
}
