import type { Bar } from './bar.js';

/**
 * Bars held as one typed column per field, ascending by ts: what the replay keeps of a recording for
 * as long as the process runs. As objects, the ~37,000 recorded bars took ~8 MB of V8 heap (an
 * object and six boxed numbers each); as columns they are outside the heap and never traced by the
 * GC, and each field is packed (`Column`): the recordings' whole-second times, whole-cent prices
 * and trade counts take 4 bytes a value, not 8 (~1.3 MB in all instead of ~2.3). A bar is made an
 * object only when it is played.
 */
export interface BarColumns {
  readonly length: number;
  readonly ts: Column;
  readonly open: Column;
  readonly high: Column;
  readonly low: Column;
  readonly close: Column;
  readonly volume: Column;
  /** NaN where the venue gives no trade count (a bar's null). */
  readonly tradeCount: Column;
}

/**
 * One field of every bar. Int32 when every value is exactly `q * scale / divisor` for a whole q
 * (NaN stored as MISSING), the numbers themselves otherwise: packing never changes a value.
 */
export interface Column {
  readonly values: Int32Array | Float64Array;
  readonly scale: number;
  readonly divisor: number;
}

const MISSING = -0x80000000;

const FIELDS = ['ts', 'open', 'high', 'low', 'close', 'volume', 'tradeCount'] as const;
type Field = (typeof FIELDS)[number];
type Unpacked = Record<Field, Float64Array>;
/** `[scale, divisor]`: a value is `q * scale / divisor` for a whole q. */
type Packing = readonly [number, number];

/** Times in ms, as whole seconds. */
const SECONDS: readonly Packing[] = [[1000, 1]];
/** Prices and volumes, the coarsest step first: whole units, cents, ... millionths. */
const DECIMALS: readonly Packing[] = [
  [1, 1],
  [1, 100],
  [1, 10_000],
  [1, 1_000_000],
];
const WHOLE: readonly Packing[] = [[1, 1]];

/** The packings tried for each field. */
const PACKINGS: Record<Field, readonly Packing[]> = {
  ts: SECONDS,
  open: DECIMALS,
  high: DECIMALS,
  low: DECIMALS,
  close: DECIMALS,
  volume: DECIMALS,
  tradeCount: WHOLE,
};

/** The columns of bars given in any order (sorted by ts here, as parseBars sorts its bars). */
export function toColumns(bars: Iterable<Bar>, capacity = 0): BarColumns {
  let grown = Object.fromEntries(FIELDS.map((f) => [f, new Float64Array(capacity)])) as Unpacked;
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
  const sorted = sortedByTs(exact, n);
  const packed = Object.fromEntries(FIELDS.map((f) => [f, pack(sorted[f], PACKINGS[f])]));
  return { ...(packed as Record<Field, Column>), length: n };
}

function resized(cols: Unpacked, size: number, keep: number): Unpacked {
  return Object.fromEntries(
    FIELDS.map((f) => {
      const next = new Float64Array(size);
      next.set(cols[f].subarray(0, keep));
      return [f, next];
    }),
  ) as Unpacked;
}

/** The first packing that gives back every value exactly, else the numbers as they are. */
function pack(values: Float64Array, packings: readonly Packing[]): Column {
  for (const [scale, divisor] of packings) {
    const packed = packedAs(values, scale, divisor);
    if (packed) return { values: packed, scale, divisor };
  }
  return { values, scale: 1, divisor: 1 };
}

function packedAs(values: Float64Array, scale: number, divisor: number): Int32Array | undefined {
  const out = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (Number.isNaN(v)) {
      out[i] = MISSING;
      continue;
    }
    const q = Math.round((v * divisor) / scale);
    if (!(q > MISSING && q <= 0x7fffffff)) return undefined;
    out[i] = q;
    // Read back as valueAt reads it; Object.is, so a -0 (stored as 0) is not taken for 0.
    if (!Object.is((out[i]! * scale) / divisor, v)) return undefined;
  }
  return out;
}

/** The value at index i. */
export function valueAt(column: Column, i: number): number {
  const v = column.values[i]!;
  if (column.values instanceof Float64Array) return v;
  return v === MISSING ? NaN : (v * column.scale) / column.divisor;
}

/** Recordings come ascending; any other order is sorted by ts, stable, like Array.prototype.sort. */
function sortedByTs(cols: Unpacked, length: number): Unpacked {
  let ascending = true;
  for (let i = 1; i < length && ascending; i++) ascending = cols.ts[i - 1]! <= cols.ts[i]!;
  if (ascending) return cols;
  const order = Array.from({ length }, (_, i) => i).sort((a, b) => cols.ts[a]! - cols.ts[b]!);
  return Object.fromEntries(FIELDS.map((f) => [f, Float64Array.from(order, (i) => cols[f][i]!)])) as Unpacked;
}

/** The bar at index i, as an object (with its ts moved by `shiftMs`). */
export function barAt(cols: BarColumns, i: number, shiftMs = 0): Bar {
  const count = valueAt(cols.tradeCount, i);
  return {
    ts: valueAt(cols.ts, i) + shiftMs,
    open: valueAt(cols.open, i),
    high: valueAt(cols.high, i),
    low: valueAt(cols.low, i),
    close: valueAt(cols.close, i),
    volume: valueAt(cols.volume, i),
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
  return i < 0 ? undefined : valueAt(cols.close, i);
}

/** Binary search: the first index whose ts satisfies `past` (monotone in ts), length when none. */
function firstWhere(cols: BarColumns, past: (ts: number) => boolean): number {
  let lo = 0;
  let hi = cols.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (past(valueAt(cols.ts, mid))) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
