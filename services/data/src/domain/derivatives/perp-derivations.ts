import { round } from './options.js';

/**
 * What the replay derives from a perpetual's recorded 1m trade bars, which hold neither the
 * exchange's mark price nor its funding rates. Each rule is stated in the answers that use it
 * (PERP_DERIVATIONS) and follows Binance's published method as far as the recording allows.
 */

/** Minutes the mark's premium (or, without an index, the trade price) is averaged over. */
export const MARK_WINDOW_MINUTES = 5;
/** Binance's interest rate component of the funding rate: 0.01 % per 8-hour interval. */
export const FUNDING_INTEREST_RATE = 0.0001;
/** Binance's clamp of (interest - premium): +-0.05 %. */
export const FUNDING_CLAMP = 0.0005;
export const FUNDING_INTERVAL_MS = 8 * 3_600_000;

/** One minute of a perp: its trade price (the bar's close) and its index then, when one was recorded. */
export interface PerpMinute {
  close: number;
  index: number | undefined;
}

export interface DerivedMark {
  mark_price: number;
  index_price: number | null;
}

/**
 * The mark of the newest minute of `window` (oldest first, at most MARK_WINDOW_MINUTES long). With an
 * index, Binance's "index + moving average of the premium": index now + mean of (close - index) over
 * the minutes of the window that have one. Without, a stated smoothing of the trade price: the mean
 * close of the window.
 */
export function derivedMark(window: readonly PerpMinute[]): DerivedMark {
  const now = window[window.length - 1];
  if (!now) throw new Error('a mark needs at least one minute');
  if (now.index === undefined)
    return { mark_price: round(mean(window.map((m) => m.close)), 8), index_price: null };
  const premiums = window.flatMap((m) => (m.index === undefined ? [] : [m.close - m.index]));
  return { mark_price: round(now.index + mean(premiums), 8), index_price: now.index };
}

/** Binance's premium index of a minute, from the trade price here (Binance uses impact bid and ask). */
export function premiumIndex(close: number, index: number): number {
  return (close - index) / index;
}

/** The start of the 8-hour funding interval (00:00, 08:00 or 16:00 UTC) a time falls in. */
export function fundingIntervalStart(ts: number): number {
  return Math.floor(ts / FUNDING_INTERVAL_MS) * FUNDING_INTERVAL_MS;
}

/**
 * An estimate of the funding rate of an 8-hour interval from the premium indexes of its minutes so
 * far (oldest first; a minute without an index, NaN, is left out), by Binance's formula: the
 * time-weighted average premium P (weights 1..n, the later the heavier) plus
 * clamp(interest - P, -0.05 %, +0.05 %). Undefined without any premium.
 */
export function estimatedFunding(premiums: ArrayLike<number>): number | undefined {
  let weighted = 0;
  let weights = 0;
  let n = 0;
  for (let i = 0; i < premiums.length; i++) {
    const p = premiums[i]!;
    if (Number.isNaN(p)) continue;
    n++;
    weighted += n * p;
    weights += n;
  }
  if (n === 0) return undefined;
  const average = weighted / weights;
  const clamped = Math.min(FUNDING_CLAMP, Math.max(-FUNDING_CLAMP, FUNDING_INTEREST_RATE - average));
  return round(average + clamped, 8);
}

export interface TakerMinute {
  volume: number;
  quote_volume: number;
  taker_buy_volume: number;
  taker_buy_quote_volume: number;
}

export interface TakerFlow {
  buy_volume: number;
  sell_volume: number;
  buy_quote_volume: number;
  sell_quote_volume: number;
  /** Taker-bought share of the volume, 0..1; null for a minute without volume. */
  buy_share: number | null;
  /** Taker-bought over taker-sold volume; null when nothing was taker-sold. */
  buy_sell_ratio: number | null;
}

/**
 * The taker side of a bar: what takers bought is recorded, the rest of the volume was bought from
 * takers who sold (every trade has one taker).
 */
export function takerFlow(m: TakerMinute): TakerFlow {
  const sell = round(m.volume - m.taker_buy_volume, 8);
  const sellQuote = round(m.quote_volume - m.taker_buy_quote_volume, 8);
  return {
    buy_volume: m.taker_buy_volume,
    sell_volume: sell,
    buy_quote_volume: m.taker_buy_quote_volume,
    sell_quote_volume: sellQuote,
    buy_share: m.volume > 0 ? round(m.taker_buy_volume / m.volume, 6) : null,
    buy_sell_ratio: sell > 0 ? round(m.taker_buy_volume / sell, 6) : null,
  };
}

const mean = (values: readonly number[]) => values.reduce((s, v) => s + v, 0) / values.length;
