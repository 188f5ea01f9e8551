import { sql, type Kysely } from 'kysely';

/**
 * Frozen. Market data of the `data` schema. Prices are double precision in the quote currency of
 * the symbol (BASE-QUOTE); they are market observations, not our money. Every table is keyed by
 * (source, key, timestamp) so that ingestion is idempotent with ON CONFLICT.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['candles_1s', 'candles_1m']) await createCandles(db, table);
  await createRollups(db);
  await createTrades(db);
  await createOptionMarks(db);
  await createFunding(db);
  await createMarkPrices(db);
}

async function createCandles(db: Kysely<any>, table: string): Promise<void> {
  await db.schema
    .createTable(table)
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('symbol', 'text', (c) => c.notNull())
    .addColumn('ts', 'timestamptz', (c) => c.notNull())
    .addColumn('base', 'text', (c) => c.notNull())
    .addColumn('quote', 'text', (c) => c.notNull())
    .addColumn('open', 'double precision', (c) => c.notNull())
    .addColumn('high', 'double precision', (c) => c.notNull())
    .addColumn('low', 'double precision', (c) => c.notNull())
    .addColumn('close', 'double precision', (c) => c.notNull())
    .addColumn('volume', 'double precision', (c) => c.notNull())
    .addColumn('trade_count', 'integer')
    .addColumn('ingested_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint(`${table}_pkey`, ['source', 'symbol', 'ts'])
    .execute();
  // The cross-venue metrics ask "every market of this base since t".
  await db.schema.createIndex(`${table}_base_ts_idx`).on(table).columns(['base', 'ts']).execute();
}

/**
 * Exact partial aggregates of the 1m bars per hour and per UTC day, recomputed from the 1m rows of
 * every bucket a batch touches, so that 1h, 4h and 1d roll-ups read a few rows per bucket.
 */
async function createRollups(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('candle_rollups')
    .addColumn('bucket', 'text', (c) => c.notNull().check(sql`bucket in ('1h', '1d')`))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('symbol', 'text', (c) => c.notNull())
    .addColumn('ts', 'timestamptz', (c) => c.notNull())
    .addColumn('base', 'text', (c) => c.notNull())
    .addColumn('quote', 'text', (c) => c.notNull())
    .addColumn('open', 'double precision', (c) => c.notNull())
    .addColumn('high', 'double precision', (c) => c.notNull())
    .addColumn('low', 'double precision', (c) => c.notNull())
    .addColumn('close', 'double precision', (c) => c.notNull())
    .addColumn('volume', 'double precision', (c) => c.notNull())
    .addColumn('trade_count', 'integer')
    .addColumn('bars', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('candle_rollups_pkey', ['bucket', 'source', 'symbol', 'ts'])
    .execute();
}

async function createTrades(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('trades')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('symbol', 'text', (c) => c.notNull())
    .addColumn('trade_id', 'text', (c) => c.notNull())
    .addColumn('ts', 'timestamptz', (c) => c.notNull())
    .addColumn('base', 'text', (c) => c.notNull())
    .addColumn('quote', 'text', (c) => c.notNull())
    .addColumn('price', 'double precision', (c) => c.notNull())
    .addColumn('size', 'double precision', (c) => c.notNull())
    .addColumn('taker_side', 'text', (c) => c.notNull().check(sql`taker_side in ('buy', 'sell')`))
    .addColumn('ingested_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('trades_pkey', ['source', 'symbol', 'trade_id'])
    .execute();
  await db.schema
    .createIndex('trades_market_ts_idx')
    .on('trades')
    .columns(['source', 'symbol', 'ts', 'trade_id'])
    .execute();
  await db.schema.createIndex('trades_base_ts_idx').on('trades').columns(['base', 'ts']).execute();
}

async function createOptionMarks(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('option_marks')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('instrument', 'text', (c) => c.notNull())
    .addColumn('ts', 'timestamptz', (c) => c.notNull())
    .addColumn('underlying', 'text', (c) => c.notNull())
    .addColumn('expiry', 'timestamptz', (c) => c.notNull())
    .addColumn('strike', 'double precision', (c) => c.notNull())
    .addColumn('option_type', 'text', (c) => c.notNull().check(sql`option_type in ('call', 'put')`))
    .addColumn('underlying_px', 'double precision', (c) => c.notNull())
    .addColumn('mark_price_usd', 'double precision', (c) => c.notNull())
    .addColumn('mark_iv', 'double precision')
    .addColumn('delta', 'double precision')
    .addColumn('gamma', 'double precision')
    .addColumn('vega', 'double precision')
    .addColumn('theta', 'double precision')
    .addColumn('open_interest', 'double precision', (c) => c.notNull())
    .addColumn('ingested_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('option_marks_pkey', ['source', 'instrument', 'ts'])
    .execute();
  // The chain is "the latest snapshot of every instrument of an underlying".
  await db.schema
    .createIndex('option_marks_underlying_ts_idx')
    .on('option_marks')
    .columns(['underlying', 'ts'])
    .execute();
}

async function createFunding(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('funding_rates')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('symbol', 'text', (c) => c.notNull())
    .addColumn('ts', 'timestamptz', (c) => c.notNull())
    .addColumn('funding_rate', 'double precision', (c) => c.notNull())
    .addColumn('interval_hours', 'double precision')
    .addColumn('ingested_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('funding_rates_pkey', ['source', 'symbol', 'ts'])
    .execute();
}

async function createMarkPrices(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mark_prices')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('symbol', 'text', (c) => c.notNull())
    .addColumn('ts', 'timestamptz', (c) => c.notNull())
    .addColumn('mark_price', 'double precision', (c) => c.notNull())
    .addColumn('index_price', 'double precision')
    .addColumn('ingested_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('mark_prices_pkey', ['source', 'symbol', 'ts'])
    .execute();
}
