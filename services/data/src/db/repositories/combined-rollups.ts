import { sql, type Kysely, type Transaction } from 'kysely';
import { SCHEMA, type Database } from '../database.js';
import { bucketRanges, type TimeRange } from '../../domain/series/bar.js';
import {
  combineIntoBuckets,
  RATE_LOOKBACK_MS,
  rollUpBuckets,
  type CombinedBucket,
} from '../../domain/spot/combine.js';
import { marketBars, marketsOf } from './candles.js';

type Db = Kysely<Database> | Transaction<Database>;
type Bucket = '1m' | '1h' | '1d';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Rows per INSERT: 11 parameters a row, well under Postgres' 65,535. */
const CHUNK = 2000;
const BACKFILL_LOCK = sql`hashtext('meridian.data.combined_backfill')`;

/**
 * Recomputes the combined 1m bars, hourly and daily roll-ups of `base` that 1m bars of the given times can
 * change: each hour's minutes from every market's 1m bars (see combineIntoBuckets), the hour from its
 * minutes, each day from its hours. A bar of time t moves the combined bars of [t, t + RATE_LOOKBACK_MS] (the quote rate
 * it makes carries that far), so those hours are recomputed too, whichever market the bar belongs to:
 * a late BASE-USD bar reprices the other venues' bars of its minutes.
 *
 * The hours read every market of the base, so two batches of different markets would each write an
 * hour missing the other's uncommitted bars: the refresh first takes a transaction lock per base, after
 * the batch's own rows are written (a batch waiting for it holds only its market's lock, never taken
 * after this one: no cycle), and its statements then see every batch committed before it.
 */
export async function refreshCombinedRollups(db: Db, base: string, times: number[]): Promise<void> {
  await refreshCombined(
    db,
    base,
    times.map((t) => ({ from: t, to: t + RATE_LOOKBACK_MS + 1 })),
  );
}

/**
 * Recomputes the hours (and their days) that `changed` reaches into, whole, and writes only the combined
 * minutes inside `changed`: the others of those hours come out as they are stored, and a tick of one
 * new minute per market rewrites six minute rows, not sixty.
 */
async function refreshCombined(db: Db, base: string, changed: TimeRange[]): Promise<void> {
  if (changed.length === 0) return;
  await lockBase(db, base);
  const markets = await marketsOf(db, base);
  const touched = bucketRanges(changed, MINUTE_MS);
  const hours = bucketRanges(touched, HOUR_MS);
  for (const range of hours) {
    const series = await marketBars(
      db,
      'candles_1m',
      markets,
      new Date(range.from - RATE_LOOKBACK_MS),
      new Date(range.to),
    );
    const minutes = combineIntoBuckets(series, range.from, MINUTE_MS);
    const written = minutes.filter((m) => touched.some((r) => m.ts >= r.from && m.ts < r.to));
    await upsertBuckets(db, '1m', base, written);
    await upsertBuckets(db, '1h', base, rollUpBuckets(minutes, HOUR_MS));
  }
  for (const range of bucketRanges(hours, DAY_MS)) {
    const hourly = await combinedRollups(db, '1h', base, new Date(range.from), new Date(range.to));
    await upsertBuckets(db, '1d', base, rollUpBuckets(hourly, DAY_MS));
  }
}

/** The stored combined buckets of `base` in [from, to), ascending. */
export async function combinedRollups(
  db: Db,
  bucket: Bucket,
  base: string,
  from: Date,
  to: Date,
): Promise<CombinedBucket[]> {
  const rows = await db
    .selectFrom('combined_rollups')
    .select(['ts', 'open', 'high', 'low', 'close', 'volume', 'trade_count', 'bars', 'markets'])
    .where('bucket', '=', bucket)
    .where('base', '=', base)
    .where('ts', '>=', from)
    .where('ts', '<', to)
    .orderBy('ts')
    .execute();
  return rows.map((r) => ({
    ts: r.ts.getTime(),
    bar:
      r.open === null || r.high === null || r.low === null || r.close === null
        ? undefined
        : {
            ts: r.ts.getTime(),
            open: r.open,
            high: r.high,
            low: r.low,
            close: r.close,
            volume: r.volume,
            trade_count: r.trade_count,
          },
    bars: r.bars,
    members: r.markets,
  }));
}

async function lockBase(db: Db, base: string) {
  await sql`select pg_advisory_xact_lock(hashtext('data.combined_rollups'), hashtext(${base}))`.execute(db);
}

async function upsertBuckets(db: Db, bucket: Bucket, base: string, buckets: CombinedBucket[]) {
  const rows = buckets.map((b) => ({
    bucket,
    base,
    ts: new Date(b.ts),
    open: b.bar?.open ?? null,
    high: b.bar?.high ?? null,
    low: b.bar?.low ?? null,
    close: b.bar?.close ?? null,
    volume: b.bar?.volume ?? 0,
    trade_count: b.bar?.trade_count ?? null,
    bars: b.bars,
    markets: JSON.stringify(b.members),
  }));
  for (let i = 0; i < rows.length; i += CHUNK)
    await db
      .insertInto('combined_rollups')
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) =>
        oc.columns(['bucket', 'base', 'ts']).doUpdateSet((eb) => ({
          open: eb.ref('excluded.open'),
          high: eb.ref('excluded.high'),
          low: eb.ref('excluded.low'),
          close: eb.ref('excluded.close'),
          volume: eb.ref('excluded.volume'),
          trade_count: eb.ref('excluded.trade_count'),
          bars: eb.ref('excluded.bars'),
          markets: eb.ref('excluded.markets'),
        })),
      )
      .execute();
}

/**
 * Every hour that has 1m bars of some market (a `candle_rollups` hour) but no combined 1m bar of its base
 * in it: what 1m bars stored before `combined_rollups` (or its `1m` rows) existed left behind (ingestion
 * writes both in one transaction, so this is empty otherwise). Reads every stored hourly roll-up once.
 */
export async function missingCombinedHours(db: Db): Promise<{ base: string; hours: number[] }[]> {
  const { rows } = await sql<{ base: string; ts: Date }>`
    select distinct r.base, r.ts from ${sql.table(`${SCHEMA}.candle_rollups`)} r
     where r.bucket = '1h' and not exists (
       select 1 from ${sql.table(`${SCHEMA}.combined_rollups`)} c
        where c.bucket = '1m' and c.base = r.base and c.ts >= r.ts and c.ts < r.ts + interval '1 hour')
     order by r.base, r.ts`.execute(db);
  const byBase = new Map<string, number[]>();
  for (const r of rows) {
    const hours = byBase.get(r.base);
    if (hours) hours.push(r.ts.getTime());
    else byBase.set(r.base, [r.ts.getTime()]);
  }
  return [...byBase].map(([base, hours]) => ({ base, hours }));
}

/**
 * Computes the missing combined hours (and their days), a UTC day's per transaction, until done or
 * `stopped`; returns how many hours it computed, or undefined when another replica is running it (one
 * at a time: each would otherwise recompute every hour, each day stalling that base's ingestion).
 * `singleConnection` (PGlite) is one process, nothing to exclude, and pinning its only connection for
 * the lock would hold every query of every service until the end: it runs unlocked there.
 */
export async function backfillCombinedRollups(
  db: Kysely<Database>,
  {
    singleConnection = false,
    stopped = () => false,
  }: { singleConnection?: boolean; stopped?: () => boolean } = {},
): Promise<number | undefined> {
  const run = async (conn: Kysely<Database>) => {
    let done = 0;
    for (const { base, hours } of await missingCombinedHours(conn))
      for (const day of byDay(hours)) {
        if (stopped()) return done;
        done += await conn.transaction().execute((trx) => backfillCombinedHours(trx, base, day));
      }
    return done;
  };
  if (singleConnection) return run(db);
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{
      locked: boolean;
    }>`select pg_try_advisory_lock(${BACKFILL_LOCK}) as locked`.execute(conn);
    if (!rows[0]?.locked) return undefined;
    try {
      return await run(conn);
    } finally {
      await sql`select pg_advisory_unlock(${BACKFILL_LOCK})`.execute(conn);
    }
  });
}

/**
 * Computes those of `hours` that still have no combined 1m bar of `base`, under the base's lock: the list
 * was read before, and since then ingestion (or an earlier run) may have written some. Answers how many.
 */
export async function backfillCombinedHours(trx: Transaction<Database>, base: string, hours: number[]) {
  if (hours.length === 0) return 0;
  await lockBase(trx, base);
  const present = await trx
    .selectFrom('combined_rollups')
    .select('ts')
    .where('bucket', '=', '1m')
    .where('base', '=', base)
    .where('ts', '>=', new Date(Math.min(...hours)))
    .where('ts', '<', new Date(Math.max(...hours) + HOUR_MS))
    .execute();
  const stored = new Set(present.map((r) => Math.floor(r.ts.getTime() / HOUR_MS) * HOUR_MS));
  const missing = hours.filter((h) => !stored.has(h));
  await refreshCombined(
    trx,
    base,
    missing.map((h) => ({ from: h, to: h + HOUR_MS })),
  );
  return missing.length;
}

/** Ascending hours grouped by UTC day: one transaction each, which then rolls its day up once. */
function byDay(hours: number[]): number[][] {
  const days: number[][] = [];
  for (const h of hours) {
    const last = days[days.length - 1];
    if (last && Math.floor(last[0]! / DAY_MS) === Math.floor(h / DAY_MS)) last.push(h);
    else days.push([h]);
  }
  return days;
}
