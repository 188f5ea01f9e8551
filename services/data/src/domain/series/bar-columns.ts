import type { Bar } from './bar.js';

/**
 * Bars held as one typed column per field, ascending by ts: what the replay keeps of a recording for
 * as long as the process runs. As objects, the ~50,000 recorded bars took ~8 MB of V8 heap (an
 * object and six boxed numbers each); as columns they take 56 bytes a bar, outside the heap and
 * never traced by the GC. A bar is made an object only when it is played.
 */
export interface BarColumns {
  readonly length: number;
  readonly ts: Float64Array;
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
  readonly volume: Float64Array;
  /** NaN where the venue gives no trade count (a bar's null). */
  readonly tradeCount: Float64Array;
}

const FIELDS = ['ts', 'open', 'high', 'low', 'close', 'volume', 'tradeCount'] as const;

/** The columns of bars given in any order (sorted by ts here, as parseBars sorts its bars). */
export function toColumns(bars: Iterable<Bar>, capacity = 0): BarColumns {
  const cols = Object.fromEntries(FIELDS.map((f) => [f, new Float64Array(capacity)])) as Omit<
    BarColumns,
    'length'
  >;
  let grown: Omit<BarColumns, 'length'> = cols;
  let n = 0;
  for (const bar of bars) {
    if (n === grown.ts.length) grown = resized(grown, Math.max(1024, n * 2), n);
    grown.ts[n] = bar.ts;
    grown.open[n] = bar.open;
    grown.high[n] = bar.high;
    grown.low[n] = bar.low;
    grown.close[n] = bar.close;
    grown.volume[n] = bar.volume;
    grown.tradeCount[n] = bar.trade_count ?? NaN;
    n++;
  }
  const exact = n === grown.ts.length ? grown : resized(grown, n, n);
  return sortedByTs({ ...exact, length: n });
}

function resized(cols: Omit<BarColumns, 'length'>, size: number, keep: number): Omit<BarColumns, 'length'> {
  return Object.fromEntries(
    FIELDS.map((f) => {
      const next = new Float64Array(size);
      next.set(cols[f].subarray(0, keep));
      return [f, next];
    }),
  ) as Omit<BarColumns, 'length'>;
}

/** Recordings come ascending; any other order is sorted by ts, stable, like Array.prototype.sort. */
function sortedByTs(cols: BarColumns): BarColumns {
  let ascending = true;
  for (let i = 1; i < cols.length && ascending; i++) ascending = cols.ts[i - 1]! <= cols.ts[i]!;
  if (ascending) return cols;
  const order = Array.from({ length: cols.length }, (_, i) => i).sort((a, b) => cols.ts[a]! - cols.ts[b]!);
  const sorted = Object.fromEntries(
    FIELDS.map((f) => [f, Float64Array.from(order, (i) => cols[f][i]!)]),
  ) as Omit<BarColumns, 'length'>;
  return { ...sorted, length: cols.length };
}

/** The bar at index i, as an object (with its ts moved by `shiftMs`). */
export function barAt(cols: BarColumns, i: number, shiftMs = 0): Bar {
  const count = cols.tradeCount[i]!;
  return {
    ts: cols.ts[i]! + shiftMs,
    open: cols.open[i]!,
    high: cols.high[i]!,
    low: cols.low[i]!,
    close: cols.close[i]!,
    volume: cols.volume[i]!,
    trade_count: Number.isNaN(count) ? null : count,
  };
}

/** The index of the first bar at or after `ts` (length when none). */
export function firstAtOrAfter(cols: BarColumns, ts: number): number {
  return firstWhere(cols, (t) => t >= ts);
}

/** The close of the newest bar at or before `ts`; undefined before the first. */
export function closeAt(cols: BarColumns, ts: number): number | undefined {
  const i = firstWhere(cols, (t) => t > ts) - 1;
  return i < 0 ? undefined : cols.close[i];
}

/** Binary search: the first index whose ts satisfies `past` (monotone in ts), length when none. */
function firstWhere(cols: BarColumns, past: (ts: number) => boolean): number {
  let lo = 0;
  let hi = cols.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (past(cols.ts[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
