import { describe, expect, it } from '@jest/globals';
import {
  loadRecordedBars,
  loadRecordedColumns,
  RECORDED_MARKETS,
  RECORDING,
} from '../../src/adapters/parsers/spot/recorded-market.js';
import { barAt, closeAt, firstAtOrAfter, toColumns } from '../../src/domain/series/bar-columns.js';
import type { Bar } from '../../src/domain/series/bar.js';
import { loopedBars, loopedRange } from '../../src/domain/replay-clock.js';

const bar = (ts: number, close: number, trade_count: number | null = null): Bar => ({
  ts,
  open: close,
  high: close + 1,
  low: close - 1,
  close,
  volume: 2,
  trade_count,
});

const FIELDS = ['ts', 'open', 'high', 'low', 'close', 'volume', 'tradeCount'] as const;

const rowsOf = (cols: ReturnType<typeof toColumns>) =>
  Array.from({ length: cols.length }, (_, i) => barAt(cols, i));

describe('bars as columns', () => {
  it('give back the bars they were made of, a missing trade count as null', () => {
    const bars = [bar(0, 10, 3), bar(60, 11), bar(120, 12, 0)];
    expect(rowsOf(toColumns(bars))).toEqual(bars);
    expect(rowsOf(toColumns(bars, 1))).toEqual(bars);
    expect(rowsOf(toColumns(bars, 100))).toEqual(bars);
    expect(toColumns([]).length).toBe(0);
  });

  it('are ascending by ts whatever the order given, equal times kept in their order', () => {
    const cols = toColumns([bar(120, 12), bar(0, 10), bar(60, 11), bar(0, 9)]);
    expect(rowsOf(cols).map((b) => [b.ts, b.close])).toEqual([
      [0, 10],
      [0, 9],
      [60, 11],
      [120, 12],
    ]);
  });

  it('grow past any number of bars', () => {
    const bars = Array.from({ length: 5000 }, (_, i) => bar(i * 60, i + 1));
    const cols = toColumns(bars);
    expect(cols.length).toBe(5000);
    expect(cols.ts.values.length).toBe(5000);
    expect(barAt(cols, 4999)).toEqual(bars[4999]);
  });

  it('pack whole seconds, cents and counts into 4 bytes a value, and keep any other value exactly', () => {
    const packable = toColumns([bar(60_000, 22196.56, 3), bar(120_000, 22199.01)]);
    for (const field of FIELDS) expect(packable[field].values).toBeInstanceOf(Int32Array);
    const odd = [bar(60_001, 0.1 + 0.2, 2 ** 40), { ...bar(120_000, 3e9), volume: -0 }];
    const cols = toColumns(odd);
    for (const field of ['ts', 'open', 'volume', 'tradeCount'] as const)
      expect(cols[field].values).toBeInstanceOf(Float64Array);
    expect(rowsOf(cols)).toEqual(odd);
    expect(Object.is(barAt(cols, 1).volume, -0)).toBe(true);
  });

  it('find the first bar at or after an instant', () => {
    const cols = toColumns([bar(0, 10), bar(60, 11)]);
    expect([-1, 0, 1, 60, 61].map((ts) => firstAtOrAfter(cols, ts))).toEqual([0, 0, 1, 1, 2]);
  });

  it('read the close of the newest bar at or before an instant', () => {
    const cols = toColumns([bar(0, 10), bar(60, 11)]);
    expect([closeAt(cols, -1), closeAt(cols, 0), closeAt(cols, 59), closeAt(cols, 600)]).toEqual([
      undefined,
      10,
      10,
      11,
    ]);
    expect(closeAt(toColumns([bar(0, 10), bar(0, 12)]), 0)).toBe(12);
    expect(closeAt(toColumns([]), 0)).toBeUndefined();
  });

  it('play in a loop exactly the bars the looped range of objects plays', () => {
    const rec = { start: 1_000, spanMs: 600 };
    const bars = [bar(1_000, 1, 1), bar(1_060, 2), bar(1_300, 3), bar(1_540, 4)];
    const cols = toColumns(bars);
    for (const [from, to] of [
      [0, 600],
      [590, 1_900],
      [1_200, 1_201],
      [60_000, 60_000],
      [12_000, 12_620],
    ] as const)
      expect(loopedBars(rec, cols, from, to)).toEqual(loopedRange(rec, bars, from, to));
    expect(loopedBars(rec, cols, 600, 1_200).map((b) => b.ts)).toEqual([600, 660, 900, 1_140]);
  });
});

describe('the recorded markets as columns', () => {
  it.each(RECORDED_MARKETS.map((m) => [`${m.venue} ${m.symbol}`, m] as const))(
    '%s holds the bars the CSV parser gives',
    (_, market) => {
      const bars = loadRecordedBars(market);
      const cols = loadRecordedColumns(market);
      expect(cols.length).toBe(bars.length);
      expect(cols.ts.values.length).toBe(bars.length);
      expect(rowsOf(cols)).toEqual(bars);
      // Whole seconds and cents: only the volume may need 8 bytes (Kraken's are in 1e-8).
      const bytes = FIELDS.reduce((sum, f) => sum + cols[f].values.byteLength, 0);
      expect(bytes).toBeLessThanOrEqual(bars.length * 32);
      const day = [RECORDING.start + 86_400_000, RECORDING.start + 2 * 86_400_000];
      expect(loopedBars(RECORDING, cols, day[0]!, day[1]!)).toEqual(
        loopedRange(RECORDING, bars, day[0]!, day[1]!),
      );
    },
  );
});
