import { sql, type Kysely } from 'kysely';
import { SCHEMA, type Database } from '../database.js';
import type { OptionMark } from '../../domain/feeds/options.js';
import type { PerpMark } from '../../domain/feeds/futures.js';

type Db = Kysely<Database>;
const t = (name: string) => sql.table(`${SCHEMA}.${name}`);

/** A chain snapshot spans a few minutes of polling; marks older than this before the newest are another snapshot. */
export const CHAIN_SNAPSHOT_SPAN_MS = 15 * 60_000;

/**
 * The latest snapshot of an underlying's chain at `at`: the newest mark of every instrument seen
 * within the snapshot span before the newest mark, live expiries only.
 */
export async function latestChainMarks(db: Db, underlying: string, at: Date): Promise<OptionMark[]> {
  const { rows } = await sql<OptionMark>`
    with newest as (
      select max(ts) as ts from ${t('option_marks')} where underlying = ${underlying} and ts <= ${at}
    )
    select distinct on (m.instrument)
           m.instrument, m.ts, m.underlying, m.expiry, m.strike, m.option_type, m.underlying_px,
           m.mark_price_usd, m.mark_iv, m.delta, m.gamma, m.vega, m.theta, m.open_interest
      from ${t('option_marks')} m, newest
     where m.underlying = ${underlying}
       and m.ts <= newest.ts and m.ts > newest.ts - ${`${CHAIN_SNAPSHOT_SPAN_MS} milliseconds`}::interval
       and m.expiry > ${at}
     order by m.instrument, m.ts desc`.execute(db);
  return rows;
}

/**
 * The newest perpetual mark price of every venue and symbol of `base` at `at`: the markets by a loose
 * scan of the primary key (source, symbol, ts), then one backward probe per market (LATERAL ... ORDER BY
 * ts DESC LIMIT 1) — never a DISTINCT ON over every stored mark.
 */
export async function latestPerpMarks(db: Db, base: string, at: Date): Promise<PerpMark[]> {
  const { rows } = await sql<PerpMark>`
    with recursive m as (
      (select source, symbol from ${t('mark_prices')} order by source, symbol limit 1)
      union all
      select n.source, n.symbol from m cross join lateral (
        select c.source, c.symbol from ${t('mark_prices')} c
         where (c.source, c.symbol) > (m.source, m.symbol) order by c.source, c.symbol limit 1) n
    )
    select m.source as venue, m.symbol, l.mark_price, l.index_price, l.ts
      from m cross join lateral (
        select c.mark_price, c.index_price, c.ts from ${t('mark_prices')} c
         where c.source = m.source and c.symbol = m.symbol and c.ts <= ${at}
         order by c.ts desc limit 1) l
     where m.symbol like ${`${base}-%`}
     order by m.source, m.symbol`.execute(db);
  return rows;
}

export interface StoredFunding {
  venue: string;
  symbol: string;
  funding_rate: number;
  interval_hours: number | null;
  ts: Date;
}

/** The newest funding rate of every venue and symbol of `base` at `at`. */
export async function latestFunding(db: Db, base: string, at: Date): Promise<StoredFunding[]> {
  const { rows } = await sql<StoredFunding>`
    select distinct on (source, symbol) source as venue, symbol, funding_rate, interval_hours, ts
      from ${t('funding_rates')}
     where symbol like ${`${base}-%`} and ts <= ${at}
     order by source, symbol, ts desc`.execute(db);
  return rows;
}
