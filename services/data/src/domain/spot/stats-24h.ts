import type { Bar } from '../series/bar.js';

/** The window of every *_24h metric: the 24 hours ending at the newest bar. */
export const DAY_MS = 86_400_000;
const MINUTES_PER_YEAR = 525_600;

export interface Window24h {
  from: string;
  to: string;
  bars: number;
}

function windowOf(bars: Bar[]): { inWindow: Bar[]; window: Window24h } | undefined {
  const last = bars[bars.length - 1];
  if (!last) return undefined;
  const from = last.ts + 60_000 - DAY_MS;
  const inWindow = bars.filter((b) => b.ts >= from);
  return {
    inWindow,
    window: {
      from: new Date(from).toISOString(),
      to: new Date(last.ts + 60_000).toISOString(),
      bars: inWindow.length,
    },
  };
}

/** Latest close versus the close of the newest bar at least 24 h older (or the oldest bar of the window). */
export function change24h(bars: Bar[]) {
  const w = windowOf(bars);
  if (!w) return undefined;
  const last = bars[bars.length - 1]!;
  const target = last.ts - DAY_MS;
  const before = [...bars].reverse().find((b) => b.ts <= target) ?? w.inWindow[0]!;
  const change = last.close - before.close;
  return {
    price: last.close,
    price_24h_ago: before.close,
    change,
    change_pct: (change / before.close) * 100,
    compared_bar: new Date(before.ts).toISOString(),
    window: w.window,
  };
}

export function range24h(bars: Bar[]) {
  const w = windowOf(bars);
  if (!w) return undefined;
  return {
    high: Math.max(...w.inWindow.map((b) => b.high)),
    low: Math.min(...w.inWindow.map((b) => b.low)),
    volume: w.inWindow.reduce((s, b) => s + b.volume, 0),
    window: w.window,
  };
}

/** Sum of midprice x volume over volume; midprice = (high + low) / 2 of each 1m bar. */
export function vwap24h(bars: Bar[]) {
  const w = windowOf(bars);
  if (!w) return undefined;
  const volume = w.inWindow.reduce((s, b) => s + b.volume, 0);
  const notional = w.inWindow.reduce((s, b) => s + ((b.high + b.low) / 2) * b.volume, 0);
  return { vwap: volume > 0 ? notional / volume : null, volume, window: w.window };
}

/**
 * Sample standard deviation of the log returns between consecutive 1m closes (a return across a
 * gap counts as one return), in percent; annualised by sqrt(525,600 minutes a year).
 */
export function realizedVolatility24h(bars: Bar[]) {
  const w = windowOf(bars);
  if (!w) return undefined;
  const returns: number[] = [];
  for (let i = 1; i < w.inWindow.length; i++)
    returns.push(Math.log(w.inWindow[i]!.close / w.inWindow[i - 1]!.close));
  const n = returns.length;
  const mean = returns.reduce((s, r) => s + r, 0) / Math.max(1, n);
  const variance = n > 1 ? returns.reduce((s, r) => s + (r - mean) ** 2, 0) / (n - 1) : 0;
  const stdev = Math.sqrt(variance);
  return {
    stdev_1m_pct: stdev * 100,
    annualized_pct: stdev * Math.sqrt(MINUTES_PER_YEAR) * 100,
    returns: n,
    window: w.window,
  };
}
