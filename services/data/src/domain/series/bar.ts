import type { DataInterval } from '@meridian/contracts';

/** One OHLCV bar; ts is its open time in ms since the epoch (UTC). */
export interface Bar {
  ts: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  /** Trades in the bar; null when the venue does not say. */
  trade_count: number | null;
}

/** The length of every interval the query schema (contracts' DATA_INTERVALS) takes, and no other. */
export const INTERVAL_MS = {
  '1s': 1_000,
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '30m': 1_800_000,
  '1h': 3_600_000,
  '4h': 14_400_000,
  '1d': 86_400_000,
} as const satisfies Record<DataInterval, number>;

export type Interval = keyof typeof INTERVAL_MS;

export function sumCounts(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : a + b;
}

/**
 * Rolls bars (ascending, of a finer interval that divides `intervalMs`) up into buckets aligned to
 * UTC: open of the first bar, highest high, lowest low, close of the last, summed volume and trade
 * count. A bucket with no bar does not exist: gaps stay gaps.
 */
export function rollUp(bars: Bar[], intervalMs: number): Bar[] {
  const out: Bar[] = [];
  let current: Bar | undefined;
  for (const bar of bars) {
    const ts = Math.floor(bar.ts / intervalMs) * intervalMs;
    if (current && current.ts === ts) {
      current.high = Math.max(current.high, bar.high);
      current.low = Math.min(current.low, bar.low);
      current.close = bar.close;
      current.volume += bar.volume;
      current.trade_count = sumCounts(current.trade_count, bar.trade_count);
    } else {
      current = { ...bar, ts };
      out.push(current);
    }
  }
  return out;
}

export interface TimeRange {
  /** Inclusive, ms since the epoch. */
  from: number;
  /** Exclusive. */
  to: number;
}

/**
 * The buckets of `intervalMs` (aligned to UTC) that the given ranges reach into, as few contiguous
 * ranges as possible, ascending: what a change over those ranges obliges one to recompute, without
 * the empty stretches between far-apart times.
 */
export function bucketRanges(ranges: TimeRange[], intervalMs: number): TimeRange[] {
  const aligned = ranges
    .map((r) => ({
      from: Math.floor(r.from / intervalMs) * intervalMs,
      to: Math.ceil(r.to / intervalMs) * intervalMs,
    }))
    .sort((a, b) => a.from - b.from);
  const out: TimeRange[] = [];
  for (const r of aligned) {
    const last = out[out.length - 1];
    if (last && r.from <= last.to) last.to = Math.max(last.to, r.to);
    else out.push({ ...r });
  }
  return out;
}

/** The span the stored data covers: from its first bar's open to its newest bar's close (ms). */
export interface Coverage {
  from: number;
  to: number;
}

/** What a roll-up bar the stored data covers only in part carries: the covered part of its period. */
export interface PartialBar {
  partial: true;
  covered_from: string;
  covered_to: string;
}

/**
 * The mark of the roll-up bucket opening at `ts` when the stored data does not cover its whole period:
 * it starts before the first stored bar (the first day after a fresh start or an import) or ends after
 * the newest one's close (the bucket in progress). Undefined for a bucket covered whole. Inside the
 * covered span a period with no bar is a quiet market, not missing data: a venue prints no bar for a
 * minute without trades, so the two cannot be told apart there.
 */
export function partialMark(ts: number, intervalMs: number, covered: Coverage): PartialBar | undefined {
  const end = ts + intervalMs;
  if (ts >= covered.from && end <= covered.to) return undefined;
  return {
    partial: true,
    covered_from: new Date(Math.max(ts, covered.from)).toISOString(),
    covered_to: new Date(Math.min(end, covered.to)).toISOString(),
  };
}
