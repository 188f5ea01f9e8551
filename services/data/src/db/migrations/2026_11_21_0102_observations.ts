import { sql, type Kysely } from 'kysely';

/**
 * Frozen. One table for the scalar and object feeds (Kp, quakes, debt, sports events, ...):
 * `value` holds the number when there is one (numeric, exact), `payload` the rest of the record.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('observations')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('metric', 'text', (c) => c.notNull())
    .addColumn('ts', 'timestamptz', (c) => c.notNull())
    .addColumn('value', 'numeric')
    .addColumn('payload', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('ingested_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('observations_pkey', ['source', 'key', 'metric', 'ts'])
    .execute();
  // Hot query: the latest (or recent) observations of one metric and key, whatever the source.
  await db.schema
    .createIndex('observations_metric_key_ts_idx')
    .on('observations')
    .columns(['metric', 'key', 'ts'])
    .execute();
}
