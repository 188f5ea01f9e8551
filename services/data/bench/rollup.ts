/**
 * 1d roll-up of 30 days of 1m bars for 3 venues (129,600 rows), timed as a caller sees it: a request to
 * the data service's HTTP app (createApp on an in-process server, real fetch), per venue (`source=`) and
 * combined (no source: the roll-up of the combined 1m bars, each the median of the venues' bars of that
 * minute, volumes summed), each beside the naive SQL baseline over the same rows in the same run (GROUP BY
 * day with array_agg first/last over the 1m rows; combined: GROUP BY minute with the median first, then
 * the same by day). Identical results required.
 */
import { catalogFor } from '@meridian/contracts';
import { sql } from 'kysely';
import { startServer } from '@meridian/http-kit';
import { callerHeaders } from '@meridian/http-kit/testing';
import { createApp } from '../src/app.js';
import { ingest } from '../src/flows/ingest.js';
import { timeIt } from '../../../bench/support.js';
import { benchDatabase, benchDeps, dropBench, type BenchDb } from './support.js';

const DAYS = 30;
const VENUES = ['venue_a', 'venue_b', 'venue_c'];
const SYMBOL = 'BTC-USD';
const START = Date.parse('2024-01-01T00:00:00Z');
const RUNS = 30;

interface DayBar {
  ts: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  trade_count: number | null;
}

/** A deterministic random walk (xorshift), so every run measures the same rows. */
function bars(seed: number) {
  let x = seed;
  const rnd = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 4294967296);
  let price = 40000;
  return Array.from({ length: DAYS * 1440 }, (_, i) => {
    const open = price;
    price *= 1 + (rnd() - 0.5) * 0.002;
    const high = Math.max(open, price) * (1 + rnd() * 0.0005);
    const low = Math.min(open, price) * (1 - rnd() * 0.0005);
    return {
      ts: new Date(START + i * 60_000).toISOString(),
      open,
      high,
      low,
      close: price,
      volume: Math.round(rnd() * 1e6) / 1e4,
      trade_count: Math.floor(rnd() * 100),
    };
  });
}

async function load(db: BenchDb): Promise<number> {
  const t0 = performance.now();
  for (const [i, venue] of VENUES.entries()) {
    const rows = bars(i + 1);
    for (let k = 0; k < rows.length; k += 10_000)
      await ingest(
        db.db,
        {
          kind: 'candles',
          source: venue,
          symbol: SYMBOL,
          interval: '1m',
          rows: rows.slice(k, k + 10_000),
        },
        catalogFor('replay'),
      );
  }
  await sql`analyze`.execute(db.db);
  return performance.now() - t0;
}

type Row = Omit<DayBar, 'ts'> & { day: Date };

const toDayBar = (r: Row): DayBar => ({
  ts: r.day.toISOString(),
  open: r.open,
  high: r.high,
  low: r.low,
  close: r.close,
  volume: r.volume,
  trade_count: r.trade_count === null ? null : Number(r.trade_count),
});

/** The naive baseline of one venue: every 1m row of the range grouped by UTC day. */
async function baselineVenue(db: BenchDb, venue: string, from: Date, to: Date): Promise<DayBar[]> {
  const { rows } = await sql<Row>`
    select date_trunc('day', ts, 'UTC') as day, (array_agg(open order by ts))[1] as open, max(high) as high,
           min(low) as low, (array_agg(close order by ts desc))[1] as close, sum(volume) as volume,
           sum(trade_count)::int as trade_count
      from data.candles_1m where source = ${venue} and symbol = ${SYMBOL} and ts >= ${from} and ts < ${to}
     group by day order by day`.execute(db.db);
  return rows.map(toDayBar);
}

/**
 * The naive combined baseline: the combined 1m bars (per minute the median OHLC of the venues, volumes
 * summed; every venue quotes USD here, so no conversion), then GROUP BY day with array_agg first/last.
 */
async function baselineCombined(db: BenchDb, from: Date, to: Date): Promise<DayBar[]> {
  const { rows } = await sql<Row>`
    with combined as (
      select ts, percentile_cont(0.5) within group (order by open) as open,
             percentile_cont(0.5) within group (order by high) as high,
             percentile_cont(0.5) within group (order by low) as low,
             percentile_cont(0.5) within group (order by close) as close,
             sum(volume) as volume, sum(trade_count) as trade_count
        from data.candles_1m where symbol = ${SYMBOL} and source in (${sql.join(VENUES)}) and ts >= ${from} and ts < ${to}
       group by ts)
    select date_trunc('day', ts, 'UTC') as day, (array_agg(open order by ts))[1] as open, max(high) as high,
           min(low) as low, (array_agg(close order by ts desc))[1] as close, sum(volume) as volume,
           sum(trade_count)::int as trade_count
      from combined group by day order by day`.execute(db.db);
  return rows.map(toDayBar);
}

/** Equal field by field; volumes are float sums in another order (hour, then day): 1e-9 relative. */
function same(a: DayBar[], b: DayBar[]): boolean {
  return (
    a.length === b.length &&
    a.every((r, i) => {
      const o = b[i]!;
      const exact =
        r.ts === o.ts &&
        r.open === o.open &&
        r.high === o.high &&
        r.low === o.low &&
        r.close === o.close &&
        r.trade_count === o.trade_count;
      return exact && Math.abs(r.volume - o.volume) <= 1e-9 * Math.abs(r.volume);
    })
  );
}

const fmt = (t: { median: number; p90: number }) =>
  `median ${t.median.toFixed(2)} ms (p90 ${t.p90.toFixed(2)})`;

export async function run(): Promise<void> {
  const db = await benchDatabase('bench_rollup');
  const server = await startServer(createApp(benchDeps(db)), { port: 0 });
  try {
    const ingestMs = await load(db);
    const from = new Date(START);
    const to = new Date(START + DAYS * 86_400_000);
    const headers = await callerHeaders({
      plan: 'free',
      auth: 'api_key',
      account_id: 'bench',
      key_id: 'bench',
    });
    const request = async (query: string): Promise<DayBar[]> => {
      const res = await fetch(
        `${server.url}/v1/data/crypto/spot/ohlcv?entity=${SYMBOL}&interval=1d${query}`,
        {
          headers,
        },
      );
      if (res.status !== 200) throw new Error(`ohlcv${query} answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { data: DayBar[] }).data;
    };
    const venue = VENUES[0]!;

    for (const v of VENUES)
      if (!same(await baselineVenue(db, v, from, to), await request(`&source=${v}`)))
        throw new Error(`per-venue roll-up of ${v} differs from the baseline`);
    const combined = await baselineCombined(db, from, to);
    if (!same(combined, await request(''))) throw new Error('combined roll-up differs from the baseline');

    const baseVenue = await timeIt(RUNS, () => baselineVenue(db, venue, from, to));
    const ourVenue = await timeIt(RUNS, () => request(`&source=${venue}`));
    const baseCombined = await timeIt(RUNS, () => baselineCombined(db, from, to));
    const ourCombined = await timeIt(RUNS, () => request(''));
    console.log(
      `data-rollup: ${VENUES.length * DAYS * 1440} 1m rows ingested in ${(ingestMs / 1000).toFixed(1)} s (with per-venue and combined roll-up maintenance)`,
    );
    console.log(
      `data-rollup: 1d roll-up, ${DAYS} days: per venue and combined answers identical to the baseline (volume within 1e-9 relative)`,
    );
    console.log(
      `data-rollup: per venue (source=${venue}): baseline SQL ${fmt(baseVenue)}; service over HTTP ${fmt(ourVenue)}; ${(baseVenue.median / ourVenue.median).toFixed(1)}x faster (target >= 5x)`,
    );
    console.log(
      `data-rollup: combined (3 venues): baseline SQL ${fmt(baseCombined)}; service over HTTP ${fmt(ourCombined)}; ${(baseCombined.median / ourCombined.median).toFixed(1)}x faster (target >= 5x)`,
    );
  } finally {
    await server.close();
    await dropBench(db);
  }
}
