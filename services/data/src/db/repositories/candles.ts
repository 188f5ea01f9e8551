import { sql, type Kysely } from 'kysely';
import { SCHEMA, type Database } from '../database.js';
import {
  REFERENCE_POLICY,
  referencePrice,
  type MarketQuote,
  type ReferencePrice,
} from '../../domain/spot/reference-price.js';
import { baseOf, marketLabel, type Market } from '../../domain/spot/market.js';
import type { MarketBars } from '../../domain/spot/combine.js';
import type { Bar } from '../../domain/series/bar.js';

const t = (name: string) => sql.table(`${SCHEMA}.${name}`);

/**
 * Every market (source, symbol) stored in a bar table, by a loose scan of its primary key: one index probe
 * per market, whatever the number of bars (a DISTINCT would read the whole table; Postgres 15 has no skip scan).
 */
function marketsIn(table: NativeTable) {
  return sql`(
    with recursive m as (
      (select source, symbol, base, quote from ${t(table)} order by source, symbol limit 1)
      union all
      select n.source, n.symbol, n.base, n.quote from m cross join lateral (
        select c.source, c.symbol, c.base, c.quote from ${t(table)} c
         where (c.source, c.symbol) > (m.source, m.symbol) order by c.source, c.symbol limit 1) n
    )
    select source, symbol, base, quote from m)`;
}

/** Markets (venue, symbol) that trade `base`: those with 1m bars and those with 1s bars. */
export async function marketsOf(db: Kysely<Database>, base: string): Promise<Market[]> {
  const { rows } = await sql<{ venue: string; symbol: string; base: string; quote: string }>`
    select source as venue, symbol, base, quote from ${marketsIn('candles_1m')} m1m where base = ${base}
    union
    select source as venue, symbol, base, quote from ${marketsIn('candles_1s')} m1s where base = ${base}
    order by venue, symbol`.execute(db);
  return rows;
}

/**
 * What the reference price of `base` reads, in one loose scan: the markets of `base`, and the direct
 * Q-USD markets (e.g. USDC-USD) of its non-USD quote currencies, which price Q outright.
 */
export async function referenceMarkets(db: Kysely<Database>, base: string): Promise<Market[]> {
  const { rows } = await sql<{ venue: string; symbol: string; base: string; quote: string }>`
    with m as (
      select source as venue, symbol, base, quote from ${marketsIn('candles_1m')} m1m
      union
      select source as venue, symbol, base, quote from ${marketsIn('candles_1s')} m1s)
    select venue, symbol, base, quote from m
     where base = ${base} or (quote = 'USD' and base in (select quote from m where base = ${base}))
     order by venue, symbol`.execute(db);
  return rows;
}

/**
 * The newest bar with a trade (volume > 0: a flat empty bar repeats an old price) at or before `at` of
 * every market of `base` (1s when it closes after the newest 1m),
 * with the market's base volume over (at - weightWindowMs, at]. One query, one index seek per market.
 */
export async function latestMarketQuotes(
  db: Kysely<Database>,
  base: string,
  at: Date,
  weightWindowMs: number,
): Promise<MarketQuote[]> {
  return quotesOfMarkets(db, await marketsOf(db, base), at, weightWindowMs);
}

async function quotesOfMarkets(
  db: Kysely<Database>,
  markets: Market[],
  at: Date,
  weightWindowMs: number,
): Promise<MarketQuote[]> {
  if (markets.length === 0) return [];
  const from = new Date(at.getTime() - weightWindowMs);
  const { rows } = await sql<{
    venue: string;
    symbol: string;
    base: string;
    quote: string;
    ts: Date | null;
    close: number | null;
    s_ts: Date | null;
    s_close: number | null;
    volume: number | null;
  }>`
    select m.venue, m.symbol, m.base, m.quote, l.ts, l.close, s.ts as s_ts, s.close as s_close,
           (select sum(v.volume) from ${t('candles_1m')} v
             where v.source = m.venue and v.symbol = m.symbol and v.ts > ${from} and v.ts <= ${at}) as volume
      from (values ${sql.join(markets.map((m) => sql`(${m.venue}, ${m.symbol}, ${m.base}, ${m.quote})`))})
           as m(venue, symbol, base, quote)
      left join lateral (select ts, close from ${t('candles_1m')} c
                          where c.source = m.venue and c.symbol = m.symbol and c.ts <= ${at} and c.volume > 0
                          order by c.ts desc limit 1) l on true
      left join lateral (select ts, close from ${t('candles_1s')} c
                          where c.source = m.venue and c.symbol = m.symbol and c.ts <= ${at} and c.volume > 0
                          order by c.ts desc limit 1) s on true`.execute(db);
  return rows.flatMap((r) => {
    // The 1s bar when it closes after the 1m bar: a minute's 1s bars open after its 1m bar but close no later.
    const useSecond =
      r.s_ts !== null && (r.ts === null || r.s_ts.getTime() + 1_000 > r.ts.getTime() + 60_000);
    const ts = useSecond ? r.s_ts : r.ts;
    const close = useSecond ? r.s_close : r.close;
    if (ts === null || close === null) return [];
    return [
      {
        venue: r.venue,
        symbol: r.symbol,
        base: r.base,
        quote: r.quote,
        price: close,
        ts: ts.getTime(),
        bar_ms: useSecond ? 1_000 : 60_000,
        volume: Number(r.volume ?? 0),
      },
    ];
  });
}

/** The newest quote of every market the reference price of `base` reads (see referenceMarkets). */
export async function referenceQuotes(db: Kysely<Database>, base: string, at: Date): Promise<MarketQuote[]> {
  return quotesOfMarkets(db, await referenceMarkets(db, base), at, REFERENCE_POLICY.weightWindowMs);
}

/** Convenience for resolvers that need the spot reference (futures basis): the query plus the pure rule. */
export async function loadReferencePrice(
  db: Kysely<Database>,
  entity: string,
  now: Date,
): Promise<ReferencePrice | undefined> {
  return referencePrice(entity, await referenceQuotes(db, baseOf(entity), now), now.getTime());
}

interface BarRow {
  source: string;
  symbol: string;
  ts: Date;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  trade_count: number | null;
}

export type NativeTable = 'candles_1s' | 'candles_1m';

function toBar(r: BarRow): Bar {
  return {
    ts: r.ts.getTime(),
    open: r.open,
    high: r.high,
    low: r.low,
    close: r.close,
    volume: r.volume,
    trade_count: r.trade_count,
  };
}

function marketFilter(markets: Market[]) {
  return sql.join(markets.map((m) => sql`(${m.venue}, ${m.symbol})`));
}

/** Bars of the markets in [from, to), ascending per market. */
export async function marketBars(
  db: Kysely<Database>,
  table: NativeTable,
  markets: Market[],
  from: Date,
  to: Date,
): Promise<MarketBars[]> {
  if (markets.length === 0) return [];
  const { rows } = await sql<BarRow>`
    select source, symbol, ts, open, high, low, close, volume, trade_count from ${t(table)}
     where (source, symbol) in (${marketFilter(markets)}) and ts >= ${from} and ts < ${to}
     order by source, symbol, ts`.execute(db);
  return groupBars(markets, rows);
}

/** Exact hourly or daily partial aggregates of one market's 1m bars in [from, to). */
export async function rollupBars(
  db: Kysely<Database>,
  bucket: '1h' | '1d',
  markets: Market[],
  from: Date,
  to: Date,
): Promise<MarketBars[]> {
  if (markets.length === 0) return [];
  const { rows } = await sql<BarRow>`
    select source, symbol, ts, open, high, low, close, volume, trade_count from ${t('candle_rollups')}
     where bucket = ${bucket} and (source, symbol) in (${marketFilter(markets)}) and ts >= ${from} and ts < ${to}
     order by source, symbol, ts`.execute(db);
  return groupBars(markets, rows);
}

function groupBars(markets: Market[], rows: BarRow[]): MarketBars[] {
  const byMarket = new Map(markets.map((m) => [marketLabel(m), { market: m, bars: [] as Bar[] }]));
  for (const r of rows) byMarket.get(marketLabel({ venue: r.source, symbol: r.symbol }))?.bars.push(toBar(r));
  return [...byMarket.values()];
}

/** Open time of the newest bar of any of the markets strictly before `before`, or undefined. */
export async function newestBarBefore(
  db: Kysely<Database>,
  table: NativeTable,
  markets: Market[],
  before: Date,
): Promise<number | undefined> {
  if (markets.length === 0) return undefined;
  const { rows } = await sql<{ ts: Date | null }>`
    select max(l.ts) as ts from (values ${sql.join(markets.map((m) => sql`(${m.venue}, ${m.symbol})`))}) as m(venue, symbol)
      cross join lateral (select ts from ${t(table)} c where c.source = m.venue and c.symbol = m.symbol and c.ts < ${before}
                           order by c.ts desc limit 1) l`.execute(db);
  return rows[0]?.ts?.getTime();
}

/** Open time of the oldest bar of any of the markets, or undefined: where the stored data begins. */
export async function oldestBar(
  db: Kysely<Database>,
  table: NativeTable,
  markets: Market[],
): Promise<number | undefined> {
  if (markets.length === 0) return undefined;
  const { rows } = await sql<{ ts: Date | null }>`
    select min(f.ts) as ts from (values ${sql.join(markets.map((m) => sql`(${m.venue}, ${m.symbol})`))}) as m(venue, symbol)
      cross join lateral (select ts from ${t(table)} c where c.source = m.venue and c.symbol = m.symbol
                           order by c.ts limit 1) f`.execute(db);
  return rows[0]?.ts?.getTime();
}
