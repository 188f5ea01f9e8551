import { median } from '../confidence.js';
import { sumCounts, type Bar } from '../series/bar.js';
import { marketLabel, type Market } from './market.js';
import { REFERENCE_POLICY } from './reference-price.js';

export interface MarketBars {
  market: Market;
  /** Ascending by ts, in the market's quote currency. */
  bars: Bar[];
}

export interface CombinedBars {
  bars: Bar[];
  /** Markets that contributed at least one bar. */
  used: Market[];
  excluded: { venue: string; symbol: string; reason: string }[];
}

/**
 * USD per unit of each quote currency at each bar time, from venues listing both BASE-USD and
 * BASE-Q in that same bar, both traded (median over venues); a time with no such pair reuses the last
 * rate of the quote for up to REFERENCE_POLICY.rateMaxSkewMs. Never 1.0 by assumption. As in the
 * reference price, a bar without volume does not make a rate: it repeats an old price.
 */
export function quoteRatesByTime(series: MarketBars[]): Map<string, Map<number, number>> {
  const usdByVenue = new Map<string, Map<number, number>>();
  for (const s of series)
    if (s.market.quote === 'USD')
      usdByVenue.set(s.market.venue, new Map(s.bars.filter((b) => b.volume > 0).map((b) => [b.ts, b.close])));
  const samples = new Map<string, Map<number, number[]>>();
  for (const s of series) {
    const usd = usdByVenue.get(s.market.venue);
    if (s.market.quote === 'USD' || !usd) continue;
    const byTs = samples.get(s.market.quote) ?? new Map<number, number[]>();
    for (const b of s.bars) {
      if (!(b.volume > 0)) continue;
      const px = usd.get(b.ts);
      if (px !== undefined) byTs.set(b.ts, [...(byTs.get(b.ts) ?? []), px / b.close]);
    }
    samples.set(s.market.quote, byTs);
  }
  const rates = new Map<string, Map<number, number>>();
  for (const [quote, byTs] of samples)
    rates.set(quote, new Map([...byTs].map(([ts, list]) => [ts, median(list)])));
  return rates;
}

function rateAt(sortedTimes: number[], rates: Map<number, number>, ts: number): number | undefined {
  // Binary search for the last rate time <= ts.
  let lo = 0;
  let hi = sortedTimes.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sortedTimes[mid]! <= ts) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (found < 0) return undefined;
  const t = sortedTimes[found]!;
  return ts - t <= REFERENCE_POLICY.rateMaxSkewMs ? rates.get(t) : undefined;
}

/**
 * The combined cross-venue bars of BASE-USD: every market's bar converted to USD at its own time's
 * quote rate, then per bar time the median open, high, low and close across the markets, with
 * volume and trade count summed. A time no market traded stays a gap.
 */
export function combineMarkets(series: MarketBars[]): CombinedBars {
  const rates = quoteRatesByTime(series);
  const excluded: CombinedBars['excluded'] = [];
  const used: Market[] = [];
  const byTs = new Map<number, Bar[]>();
  for (const s of series) {
    const r = rates.get(s.market.quote);
    const times = r ? [...r.keys()].sort((a, b) => a - b) : [];
    let contributed = 0;
    for (const b of s.bars) {
      const rate = s.market.quote === 'USD' ? 1 : r && rateAt(times, r, b.ts);
      if (rate === undefined) continue;
      const usd = {
        ...b,
        open: b.open * rate,
        high: b.high * rate,
        low: b.low * rate,
        close: b.close * rate,
      };
      byTs.set(b.ts, [...(byTs.get(b.ts) ?? []), usd]);
      contributed++;
    }
    if (contributed > 0) used.push(s.market);
    if (contributed < s.bars.length)
      excluded.push({
        venue: s.market.venue,
        symbol: s.market.symbol,
        reason: `${s.bars.length - contributed} of ${s.bars.length} bars left out: no USD rate for ${s.market.quote} derivable at their time (${marketLabel(s.market)})`,
      });
  }
  const bars = [...byTs.entries()]
    .sort(([a], [b]) => a - b)
    .map(([ts, list]) => ({
      ts,
      open: median(list.map((b) => b.open)),
      high: median(list.map((b) => b.high)),
      low: median(list.map((b) => b.low)),
      close: median(list.map((b) => b.close)),
      volume: list.reduce((s, b) => s + b.volume, 0),
      trade_count: list.reduce<number | null>((s, b) => sumCounts(s, b.trade_count), null),
    }));
  return { bars, used, excluded };
}
