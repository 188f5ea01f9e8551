import { combinedRollups } from '../../../db/repositories/combined-rollups.js';
import { marketBars, rollupBars } from '../../../db/repositories/candles.js';
import type { DataDeps } from '../../../deps.js';
import type { MetricAnswer, SourceRef } from '../../../domain/metric-resolver.js';
import { INTERVAL_MS, rollUp, type Bar, type Interval } from '../../../domain/series/bar.js';
import {
  combineMarkets,
  excludedOf,
  mergeTallies,
  RATE_LOOKBACK_MS,
  rollUpBuckets,
  type CombinedBars,
  type MarketBars,
} from '../../../domain/spot/combine.js';
import { baseOf, type Market } from '../../../domain/spot/market.js';
import { sourcesOf, venuesOf, type Selection } from './spot-select.js';

/**
 * One market's own bars of the interval in [start, end), in its quote currency: 1s and 1m native; 5m,
 * 15m and 30m rolled up from the 1m rows; 1h and 4h from the stored exact hourly roll-ups, 1d from the
 * daily ones (candle_rollups).
 */
async function marketSeries(
  deps: DataDeps,
  markets: Market[],
  interval: Interval,
  start: Date,
  end: Date,
): Promise<MarketBars[]> {
  const ms = INTERVAL_MS[interval];
  let series: MarketBars[];
  if (interval === '1s') series = await marketBars(deps.db, 'candles_1s', markets, start, end);
  else if (ms < INTERVAL_MS['1h']) series = await marketBars(deps.db, 'candles_1m', markets, start, end);
  else series = await rollupBars(deps.db, interval === '1d' ? '1d' : '1h', markets, start, end);
  return series.map((s) => ({ market: s.market, bars: rollUp(s.bars, ms) }));
}

/**
 * The combined bars of the interval in [start, end): the exact roll-up of the combined 1m bars (1s: the
 * combined 1s bars), each converted at its own minute's rate. 1s combined here from every market's 1s
 * bars, read from RATE_LOOKBACK_MS earlier so that the rates of the first seconds are those of an
 * unbounded read; every other interval from the combined 1m bars, hourly and daily roll-ups that
 * ingestion keeps (combined_rollups): one range of its key, rolled up to 5m-30m or 4h.
 */
async function combinedSeries(
  deps: DataDeps,
  sel: Selection,
  interval: Interval,
  start: Date,
  end: Date,
): Promise<CombinedBars> {
  const ms = INTERVAL_MS[interval];
  if (interval === '1s') {
    const from = new Date(start.getTime() - RATE_LOOKBACK_MS);
    const combined = combineMarkets(
      await marketBars(deps.db, 'candles_1s', sel.markets, from, end),
      start.getTime(),
    );
    return { bars: combined.bars, members: combined.members };
  }
  const bucket = ms < INTERVAL_MS['1h'] ? '1m' : interval === '1d' ? '1d' : '1h';
  const stored = await combinedRollups(deps.db, bucket, baseOf(sel.symbol), start, end);
  const buckets = ms === INTERVAL_MS[bucket] ? stored : rollUpBuckets(stored, ms);
  return {
    bars: buckets.flatMap((b) => (b.bar ? [b.bar] : [])),
    members: mergeTallies(buckets.flatMap((b) => b.members)),
  };
}

interface Page {
  bars: Bar[];
  venues: string[];
  sources: SourceRef[];
  excluded: MetricAnswer['excluded'];
}

/** A page of bars: that venue's market's own bars, or the combined bars with what each market gave. */
export async function pageBars(
  deps: DataDeps,
  sel: Selection,
  interval: Interval,
  start: Date,
  end: Date,
): Promise<Page> {
  if (!sel.combined) {
    const series = await marketSeries(deps, sel.markets, interval, start, end);
    return {
      bars: series[0]?.bars ?? [],
      venues: venuesOf(series),
      sources: sourcesOf(series),
      excluded: [],
    };
  }
  const combined = await combinedSeries(deps, sel, interval, start, end);
  const gave = combined.members.filter((m) => m.last !== null);
  return {
    bars: combined.bars,
    venues: [...new Set(gave.map((m) => m.venue))],
    sources: gave.map((m) => ({ venue: m.venue, symbol: m.symbol, ts: new Date(m.last!).toISOString() })),
    excluded: excludedOf(combined.members),
  };
}
