/**
 * 1d roll-up of 30 days of 1m bars for 3 venues (129,600 rows): the service's path (exact daily
 * partial aggregates kept as bars are ingested) against the naive SQL baseline (GROUP BY day with
 * array_agg first/last over the 1m rows), same process, same database, identical results required.
 */
import { sql } from 'kysely';
import { rollupBars } from '../services/data/src/db/repositories/candles.js';
import { rollUp } from '../services/data/src/domain/series/bar.js';
import { ingest } from '../services/data/src/ingest/ingest.js';
import { benchDatabase, dropBench, timeIt } from './support.js';

const DAYS = 30;
const VENUES = ['venue_a', 'venue_b', 'venue_c'];
const SYMBOL = 'BTC-USD';
const START = Date.parse('2024-01-01T00:00:00Z');
const RUNS = 30;

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

export async function run(): Promise<void> {
  const db = await benchDatabase('bench_rollup');
  try {
    const t0 = performance.now();
    for (const [i, venue] of VENUES.entries()) {
      const rows = bars(i + 1);
      for (let k = 0; k < rows.length; k += 10_000)
        await ingest(db.db, {
          kind: 'candles',
          source: venue,
          symbol: SYMBOL,
          interval: '1m',
          rows: rows.slice(k, k + 10_000),
        });
    }
    const ingestMs = performance.now() - t0;
    const from = new Date(START);
    const to = new Date(START + DAYS * 86_400_000);
    const markets = VENUES.map((venue) => ({ venue, symbol: SYMBOL, base: 'BTC', quote: 'USD' }));

    const baseline = async () => {
      const { rows } = await sql<{
        source: string;
        day: Date;
        open: number;
        high: number;
        low: number;
        close: number;
        volume: number;
        trade_count: number;
      }>`
        select source, date_trunc('day', ts, 'UTC') as day, (array_agg(open order by ts))[1] as open, max(high) as high,
               min(low) as low, (array_agg(close order by ts desc))[1] as close, sum(volume) as volume,
               sum(trade_count)::int as trade_count
          from data.candles_1m where symbol = ${SYMBOL} and source in (${sql.join(VENUES)}) and ts >= ${from} and ts < ${to}
         group by source, day order by source, day`.execute(db.db);
      return rows.map((r) => ({
        venue: r.source,
        ts: r.day.getTime(),
        open: r.open,
        high: r.high,
        low: r.low,
        close: r.close,
        volume: r.volume,
        trade_count: r.trade_count,
      }));
    };
    const ours = async () => {
      const series = await rollupBars(db.db, '1d', markets, from, to);
      return series.flatMap((s) => rollUp(s.bars, 86_400_000).map((b) => ({ venue: s.market.venue, ...b })));
    };

    const a = await baseline();
    const b = await ours();
    const same =
      a.length === b.length &&
      a.every((r, i) => {
        const o = b[i]!;
        const exact =
          r.venue === o.venue &&
          r.ts === o.ts &&
          r.open === o.open &&
          r.high === o.high &&
          r.low === o.low &&
          r.close === o.close &&
          r.trade_count === o.trade_count;
        return exact && Math.abs(r.volume - o.volume) <= 1e-9 * Math.abs(r.volume);
      });
    if (!same) throw new Error('roll-up results differ from the baseline');
    const base = await timeIt(RUNS, baseline);
    const mine = await timeIt(RUNS, ours);
    console.log(
      `data-rollup: ${VENUES.length * DAYS * 1440} 1m rows ingested in ${(ingestMs / 1000).toFixed(1)} s (with roll-up maintenance)`,
    );
    console.log(`data-rollup: 1d roll-up, ${a.length} rows, identical (volume within 1e-9 relative)`);
    console.log(
      `data-rollup: baseline GROUP BY day median ${base.median.toFixed(2)} ms (p90 ${base.p90.toFixed(2)}); service median ${mine.median.toFixed(2)} ms (p90 ${mine.p90.toFixed(2)})`,
    );
    console.log(
      `data-rollup: service is ${(base.median / mine.median).toFixed(1)}x faster than the baseline (target >= 5x)`,
    );
  } finally {
    await dropBench(db);
  }
}
