import { sql, type Kysely, type Transaction } from 'kysely';
import { SCHEMA, type Database } from '../database.js';

type Db = Kysely<Database> | Transaction<Database>;

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Recomputes, from the stored 1m bars, the exact hourly and daily aggregates of every bucket the
 * given bar times fall in (and every bucket between, which costs a range scan and keeps it simple).
 */
export async function refreshRollups(db: Db, source: string, symbol: string, times: number[]): Promise<void> {
  if (times.length === 0) return;
  let min = Infinity;
  let max = -Infinity;
  for (const t of times) {
    if (t < min) min = t;
    if (t > max) max = t;
  }
  const hourFrom = new Date(Math.floor(min / HOUR_MS) * HOUR_MS);
  const hourTo = new Date(Math.floor(max / HOUR_MS) * HOUR_MS + HOUR_MS);
  const dayFrom = new Date(Math.floor(min / DAY_MS) * DAY_MS);
  const dayTo = new Date(Math.floor(max / DAY_MS) * DAY_MS + DAY_MS);
  await sql`
    insert into ${sql.table(`${SCHEMA}.candle_rollups`)} (bucket, source, symbol, ts, base, quote, open, high, low, close, volume, trade_count, bars)
    select '1h', source, symbol, date_trunc('hour', ts, 'UTC') as bucket_ts, min(base), min(quote),
           (array_agg(open order by ts))[1], max(high), min(low), (array_agg(close order by ts desc))[1],
           sum(volume), sum(trade_count), count(*)
      from ${sql.table(`${SCHEMA}.candles_1m`)}
     where source = ${source} and symbol = ${symbol} and ts >= ${hourFrom} and ts < ${hourTo}
     group by source, symbol, bucket_ts
    on conflict (bucket, source, symbol, ts) do update set
      open = excluded.open, high = excluded.high, low = excluded.low, close = excluded.close,
      volume = excluded.volume, trade_count = excluded.trade_count, bars = excluded.bars`.execute(db);
  await sql`
    insert into ${sql.table(`${SCHEMA}.candle_rollups`)} (bucket, source, symbol, ts, base, quote, open, high, low, close, volume, trade_count, bars)
    select '1d', source, symbol, date_trunc('day', ts, 'UTC') as bucket_ts, min(base), min(quote),
           (array_agg(open order by ts))[1], max(high), min(low), (array_agg(close order by ts desc))[1],
           sum(volume), sum(trade_count), sum(bars)
      from ${sql.table(`${SCHEMA}.candle_rollups`)}
     where bucket = '1h' and source = ${source} and symbol = ${symbol} and ts >= ${dayFrom} and ts < ${dayTo}
     group by source, symbol, bucket_ts
    on conflict (bucket, source, symbol, ts) do update set
      open = excluded.open, high = excluded.high, low = excluded.low, close = excluded.close,
      volume = excluded.volume, trade_count = excluded.trade_count, bars = excluded.bars`.execute(db);
}
