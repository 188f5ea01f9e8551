import { median } from '../confidence.js';
import { rollUp, sumCounts, type Bar } from '../series/bar.js';
import { marketLabel, type Market } from './market.js';
import { REFERENCE_POLICY } from './reference-price.js';

export interface MarketBars {
  market: Market;
  /** Ascending by ts, in the market's quote currency. */
  bars: Bar[];
}

/**
 * How long a quote rate carries (REFERENCE_POLICY.rateMaxSkewMs). The combined bar of time t depends on
 * the markets' bars of [t - RATE_LOOKBACK_MS, t] and on nothing else: a range is combined exactly from
 * its own bars and this much before it, and a bar of time t changes the combined bars of
 * [t, t + RATE_LOOKBACK_MS] only.
 */
export const RATE_LOOKBACK_MS = REFERENCE_POLICY.rateMaxSkewMs;

/** What one market gave a combined range or bucket. */
export interface MemberTally {
  venue: string;
  symbol: string;
  /** Its bars in the range. */
  bars: number;
  /** Of those, the bars with no USD rate at their time: left out. */
  left_out: number;
  /** Open time of the newest bar it gave; null when it gave none. */
  last: number | null;
}

export interface CombinedBars {
  bars: Bar[];
  /** Every market with a bar in the range, in (venue, symbol) order. */
  members: MemberTally[];
}

/** A combined bucket (an hour, a day) with what each market gave it. */
export interface CombinedBucket {
  ts: number;
  /** Undefined when no market's bar of the bucket had a USD rate: a gap, kept for its tallies. */
  bar: Bar | undefined;
  /** Combined bars of the finer interval inside: a gap shows as fewer. */
  bars: number;
  members: MemberTally[];
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

interface UsdBar {
  ts: number;
  /** The bar in USD; undefined when no rate of its quote was derivable at its time. */
  usd: Bar | undefined;
}

/** Every market's bars at or after `from` in USD at their own time's rate; earlier bars only make rates. */
function inUsd(series: MarketBars[], from: number): { market: Market; bars: UsdBar[] }[] {
  const rates = quoteRatesByTime(series);
  return series.map((s) => {
    const r = rates.get(s.market.quote);
    const times = r ? [...r.keys()].sort((a, b) => a - b) : [];
    const bars = s.bars
      .filter((b) => b.ts >= from)
      .map((b) => {
        const rate = s.market.quote === 'USD' ? 1 : r && rateAt(times, r, b.ts);
        const usd =
          rate === undefined
            ? undefined
            : { ...b, open: b.open * rate, high: b.high * rate, low: b.low * rate, close: b.close * rate };
        return { ts: b.ts, usd };
      });
    return { market: s.market, bars };
  });
}

/** Per bar time, the median open, high, low and close of the USD bars, volumes and trade counts summed. */
function combineByTime(converted: { bars: UsdBar[] }[]): Bar[] {
  const byTs = new Map<number, Bar[]>();
  for (const c of converted)
    for (const b of c.bars) {
      if (!b.usd) continue;
      const list = byTs.get(b.ts);
      if (list) list.push(b.usd);
      else byTs.set(b.ts, [b.usd]);
    }
  return [...byTs.entries()]
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
}

function tally(market: Market, bars: UsdBar[]): MemberTally {
  let last: number | null = null;
  let leftOut = 0;
  for (const b of bars)
    if (!b.usd) leftOut++;
    else if (last === null || b.ts > last) last = b.ts;
  return { venue: market.venue, symbol: market.symbol, bars: bars.length, left_out: leftOut, last };
}

const byLabel = (a: MemberTally, b: MemberTally) =>
  a.venue === b.venue ? (a.symbol < b.symbol ? -1 : 1) : a.venue < b.venue ? -1 : 1;

/**
 * The combined cross-venue bars of BASE-USD at or after `from`: every market's bar converted to USD at
 * its own time's quote rate, then per bar time the median open, high, low and close across the markets,
 * with volume and trade count summed. A time no market traded stays a gap. Bars before `from` only make
 * rates: give RATE_LOOKBACK_MS of them for the bars at `from` to be those of an unbounded range.
 */
export function combineMarkets(series: MarketBars[], from = -Infinity): CombinedBars {
  const converted = inUsd(series, from);
  return {
    bars: combineByTime(converted),
    members: converted
      .filter((c) => c.bars.length > 0)
      .map((c) => tally(c.market, c.bars))
      .sort(byLabel),
  };
}

/**
 * The combined bars of `combineMarkets` rolled up into buckets of `intervalMs` aligned to UTC (first open,
 * highest high, lowest low, last close, volumes summed), with what each market gave each bucket. A bucket
 * where markets had bars but none a USD rate comes without a bar, for its tallies.
 */
export function combineIntoBuckets(series: MarketBars[], from: number, intervalMs: number): CombinedBucket[] {
  const converted = inUsd(series, from);
  const combined = combineByTime(converted);
  const buckets = new Map<number, CombinedBucket>();
  const at = (ts: number) => {
    const key = Math.floor(ts / intervalMs) * intervalMs;
    let bucket = buckets.get(key);
    if (!bucket) buckets.set(key, (bucket = { ts: key, bar: undefined, bars: 0, members: [] }));
    return bucket;
  };
  for (const bar of rollUp(combined, intervalMs)) at(bar.ts).bar = bar;
  for (const bar of combined) at(bar.ts).bars++;
  for (const c of converted) {
    const byBucket = new Map<number, UsdBar[]>();
    for (const b of c.bars) {
      const key = at(b.ts).ts;
      const list = byBucket.get(key);
      if (list) list.push(b);
      else byBucket.set(key, [b]);
    }
    for (const [key, bars] of byBucket) at(key).members.push(tally(c.market, bars));
  }
  return [...buckets.values()]
    .sort((a, b) => a.ts - b.ts)
    .map((b) => ({ ...b, members: b.members.sort(byLabel) }));
}

/** Tallies of one market added up: bars and left-out bars summed, the newest bar given. */
export function mergeTallies(tallies: MemberTally[]): MemberTally[] {
  const merged = new Map<string, MemberTally>();
  for (const t of tallies) {
    const m = merged.get(marketLabel(t));
    if (!m) merged.set(marketLabel(t), { ...t });
    else {
      m.bars += t.bars;
      m.left_out += t.left_out;
      if (t.last !== null && (m.last === null || t.last > m.last)) m.last = t.last;
    }
  }
  return [...merged.values()].sort(byLabel);
}

/**
 * Combined buckets (ascending) rolled up into coarser ones aligned to UTC: hours into 4 h or a day. Exact:
 * the first open, the highest high, the lowest low and the last close of the finer buckets are those of
 * the combined 1m bars inside.
 */
export function rollUpBuckets(buckets: CombinedBucket[], intervalMs: number): CombinedBucket[] {
  const groups = new Map<number, CombinedBucket[]>();
  for (const b of buckets) {
    const key = Math.floor(b.ts / intervalMs) * intervalMs;
    const group = groups.get(key);
    if (group) group.push(b);
    else groups.set(key, [b]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a - b)
    .map(([ts, group]) => ({
      ts,
      bar: rollUp(
        group.flatMap((b) => (b.bar ? [b.bar] : [])),
        intervalMs,
      )[0],
      bars: group.reduce((n, b) => n + b.bars, 0),
      members: mergeTallies(group.flatMap((b) => b.members)),
    }));
}

/** Markets with bars left out for want of a USD rate, each with its reason. */
export function excludedOf(members: MemberTally[]): { venue: string; symbol: string; reason: string }[] {
  return members
    .filter((m) => m.left_out > 0)
    .map((m) => ({
      venue: m.venue,
      symbol: m.symbol,
      reason: `${m.left_out} of ${m.bars} bars left out: no USD rate for ${m.symbol.split('-')[1]} derivable at their time (${marketLabel(m)})`,
    }));
}
