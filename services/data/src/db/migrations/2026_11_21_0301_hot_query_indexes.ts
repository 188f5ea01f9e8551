import type { Kysely } from 'kysely';

/**
 * Frozen. Indexes chosen from the measured plans (README "Hot queries and their plans"):
 * - the trades page of every venue (`where symbol = ? order by ts desc, source desc, trade_id desc`, resumed
 *   with a row comparison on (ts, source, trade_id)) read the whole table and sorted it, no index beginning
 *   with the symbol; this one answers every page by one backward range scan;
 * - (base, ts) of the 1m bars served no query once the markets of a base are found by a loose scan of the
 *   primary key, and cost a write per ingested bar: dropped (the 1s one stays, the retention purge uses it).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('trades_symbol_ts_idx')
    .on('trades')
    .columns(['symbol', 'ts', 'source', 'trade_id'])
    .execute();
  await db.schema.dropIndex('candles_1m_base_ts_idx').execute();
}
