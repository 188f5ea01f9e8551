import { sql, type Kysely } from 'kysely';
import { SCHEMA, type Database } from '../database.js';
import type { OptionMark } from '../../domain/derivatives/options.js';
import type { PerpMark } from '../../domain/derivatives/futures.js';

type Db = Kysely<Database>;
const t = (name: string) => sql.table(`${SCHEMA}.${name}`);

/**
 * The latest snapshot of an underlying's chain at `at`: the newest mark of every instrument seen
 * within `spanMs` before the newest mark (older marks belong to another snapshot), live expiries only.
 */
export async function latestChainMarks(
  db: Db,
  underlying: string,
  at: Date,
  spanMs: number,
): Promise<OptionMark[]> {
  const { rows } = await sql<OptionMark>`
    with newest as (
      select max(ts) as ts from ${t('option_marks')} where underlying = ${underlying} and ts <= ${at}
    )
    select distinct on (m.instrument)
           m.instrument, m.ts, m.underlying, m.expiry, m.strike, m.option_type, m.underlying_px,
           m.mark_price_usd, m.mark_iv, m.delta, m.gamma, m.vega, m.theta, m.open_interest
      from ${t('option_marks')} m, newest
     where m.underlying = ${underlying}
       and m.ts <= newest.ts and m.ts > newest.ts - ${`${spanMs} milliseconds`}::interval
       and m.expiry > ${at}
     order by m.instrument, m.ts desc`.execute(db);
  return rows;
}

/**
 * The newest row at `at` of every (source, symbol) of `base` in a futures table keyed (source, symbol, ts):
 * the markets by a loose scan of the primary key, then one backward probe per market (LATERAL ... ORDER BY
 * ts DESC LIMIT 1) — never a DISTINCT ON over every stored row, which grows with the history kept.
 */
function newestPerMarket(table: 'mark_prices' | 'funding_rates', columns: string[], base: string, at: Date) {
  const picked = sql.join(columns.map((c) => sql.ref(`c.${c}`)));
  const shown = sql.join(columns.map((c) => sql.ref(`l.${c}`)));
  return sql`
    with recursive m as (
      (select source, symbol from ${t(table)} order by source, symbol limit 1)
      union all
      select n.source, n.symbol from m cross join lateral (
        select c.source, c.symbol from ${t(table)} c
         where (c.source, c.symbol) > (m.source, m.symbol) order by c.source, c.symbol limit 1) n
    )
    select m.source as venue, m.symbol, ${shown}, l.ts
      from m cross join lateral (
        select ${picked}, c.ts from ${t(table)} c
         where c.source = m.source and c.symbol = m.symbol and c.ts <= ${at}
         order by c.ts desc limit 1) l
     where m.symbol like ${`${base}-%`}
     order by m.source, m.symbol`;
}

/** The newest perpetual mark price of every venue and symbol of `base` at `at` (see newestPerMarket). */
export async function latestPerpMarks(db: Db, base: string, at: Date): Promise<PerpMark[]> {
  const { rows } = await newestPerMarket('mark_prices', ['mark_price', 'index_price'], base, at)
    .$castTo<PerpMark>()
    .execute(db);
  return rows;
}

export interface StoredFunding {
  venue: string;
  symbol: string;
  funding_rate: number;
  interval_hours: number | null;
  ts: Date;
}

/** The newest funding rate of every venue and symbol of `base` at `at` (see newestPerMarket). */
export async function latestFunding(db: Db, base: string, at: Date): Promise<StoredFunding[]> {
  const { rows } = await newestPerMarket('funding_rates', ['funding_rate', 'interval_hours'], base, at)
    .$castTo<StoredFunding>()
    .execute(db);
  return rows;
}

/** One stored row of a derivatives table, by its key: (source, instrument, ts) or (source, symbol, ts). */
export type DerivativeRowKey =
  | { table: 'option_marks'; instrument: string; ts: string }
  | { table: 'funding_rates' | 'mark_prices'; symbol: string; ts: string };

/** Deletes rows of the derivatives tables of a source by their keys (a replay's earlier play), 500 a statement. */
export async function deleteDerivativeRows(
  db: Db,
  source: string,
  keys: readonly DerivativeRowKey[],
): Promise<void> {
  const options = keys.flatMap((k) => (k.table === 'option_marks' ? [k] : []));
  for (let i = 0; i < options.length; i += 500)
    await db
      .deleteFrom('option_marks')
      .where('source', '=', source)
      .where((eb) =>
        eb.or(
          options
            .slice(i, i + 500)
            .map((k) => eb.and([eb('instrument', '=', k.instrument), eb('ts', '=', new Date(k.ts))])),
        ),
      )
      .execute();
  for (const key of keys)
    if (key.table !== 'option_marks')
      await db
        .deleteFrom(key.table)
        .where('source', '=', source)
        .where('symbol', '=', key.symbol)
        .where('ts', '=', new Date(key.ts))
        .execute();
}
