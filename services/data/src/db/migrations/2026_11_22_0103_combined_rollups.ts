import { sql, type Kysely } from 'kysely';

/**
 * Frozen. Exact hourly and UTC-daily roll-ups of the combined cross-venue 1m bars of a base (USD), kept
 * as bars arrive, so that a combined 1h, 4h or 1d answer reads a few rows per bucket and still equals
 * the roll-up of the combined 1m bars. OHLC are null exactly when no market's bar of the bucket had a
 * USD rate (`bars` = 0): the row then only keeps `markets`, the tally of what each market gave
 * ([{venue, symbol, bars, left_out, last}]), so that the answer can name what it left out.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('combined_rollups')
    .addColumn('bucket', 'text', (c) => c.notNull().check(sql`bucket in ('1h', '1d')`))
    .addColumn('base', 'text', (c) => c.notNull())
    .addColumn('ts', 'timestamptz', (c) => c.notNull())
    .addColumn('open', 'double precision')
    .addColumn('high', 'double precision')
    .addColumn('low', 'double precision')
    .addColumn('close', 'double precision')
    .addColumn('volume', 'double precision', (c) => c.notNull())
    .addColumn('trade_count', 'integer')
    .addColumn('bars', 'integer', (c) => c.notNull())
    .addColumn('markets', 'jsonb', (c) => c.notNull())
    .addPrimaryKeyConstraint('combined_rollups_pkey', ['bucket', 'base', 'ts'])
    .addCheckConstraint(
      'combined_rollups_bar_check',
      sql`(bars = 0) = (open is null) and (open is null) = (high is null) and (open is null) = (low is null) and (open is null) = (close is null)`,
    )
    .execute();
}
