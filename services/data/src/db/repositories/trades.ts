import { sql, type Kysely } from 'kysely';
import { SCHEMA, type Database } from '../database.js';

export interface TradePrint {
  ts: string;
  venue: string;
  symbol: string;
  trade_id: string;
  price: number;
  size: number;
  taker_side: 'buy' | 'sell';
}

/** Resume point of a trades page: strictly older than (ts, venue, trade_id). */
export interface TradesPosition {
  ts: number;
  venue: string;
  trade_id: string;
}

/** The newest `limit` prints of `symbol` (optionally one venue) before the position, newest first. */
export async function tradesBefore(
  db: Kysely<Database>,
  symbol: string,
  venue: string | undefined,
  before: TradesPosition | undefined,
  limit: number,
): Promise<TradePrint[]> {
  const venueFilter = venue === undefined ? sql`` : sql`and source = ${venue}`;
  const position =
    before === undefined
      ? sql``
      : sql`and (ts, source, trade_id) < (${new Date(before.ts)}, ${before.venue}, ${before.trade_id})`;
  const { rows } = await sql<{
    ts: Date;
    source: string;
    symbol: string;
    trade_id: string;
    price: number;
    size: number;
    taker_side: 'buy' | 'sell';
  }>`
    select ts, source, symbol, trade_id, price, size, taker_side from ${sql.table(`${SCHEMA}.trades`)}
     where symbol = ${symbol} ${venueFilter} ${position}
     order by ts desc, source desc, trade_id desc
     limit ${limit}`.execute(db);
  return rows.map((r) => ({
    ts: r.ts.toISOString(),
    venue: r.source,
    symbol: r.symbol,
    trade_id: r.trade_id,
    price: r.price,
    size: r.size,
    taker_side: r.taker_side,
  }));
}
