import { describe, expect, it } from '@jest/globals';
import {
  change24h,
  change24hRow,
  computedSeries,
  largestQuake,
  quakesIn,
  yoyGrowth,
  yoyRow,
} from '../../src/domain/feeds/computations.js';
import { basisPercent, freshMarks, marksInUsd } from '../../src/domain/derivatives/futures.js';
import {
  expiryVariance,
  impliedVolIndex,
  openInterest,
  putCallOiRatio,
  type OptionMark,
} from '../../src/domain/derivatives/options.js';

const p = (ts: string, value: number) => ({ ts: new Date(ts), value });

describe('feed computations', () => {
  it('year-over-year growth uses the same month a year earlier, even with a month missing', () => {
    const g = yoyGrowth([
      p('2024-09-01', 110),
      p('2024-08-01', 108),
      p('2023-09-01', 100),
      p('2023-07-01', 90),
    ]);
    expect(g?.percent).toBeCloseTo(10, 9);
    expect(g?.base.ts.toISOString()).toBe('2023-09-01T00:00:00.000Z');
    expect(yoyGrowth([p('2024-09-01', 110), p('2023-10-01', 100)])).toBeUndefined();
  });

  it('change_24h compares with the newest point at least 20 h older (a weekend is skipped)', () => {
    const c = change24h([
      p('2024-11-18T15:00:00Z', 1.1),
      p('2024-11-15T15:00:00Z', 1.0),
      p('2024-11-18T09:00:00Z', 5),
    ]);
    expect(c?.percent).toBeCloseTo(10, 9);
  });

  it('a change_24h series has one row per fixing with a previous one: the change in percent, not the rate', () => {
    // Newest first: Monday, Friday, Thursday fixings.
    const fixings = [
      p('2024-11-18T15:00:00Z', 1.1),
      p('2024-11-15T15:00:00Z', 1.0),
      p('2024-11-14T15:00:00Z', 1.25),
    ];
    expect(computedSeries(fixings, 3, 5, change24hRow)).toEqual([
      {
        ts: '2024-11-18T15:00:00.000Z',
        value: 10,
        rate: 1.1,
        previous_rate: 1.0,
        from: '2024-11-15T15:00:00.000Z',
      },
      {
        ts: '2024-11-15T15:00:00.000Z',
        value: -20,
        rate: 1.0,
        previous_rate: 1.25,
        from: '2024-11-14T15:00:00.000Z',
      },
    ]);
    // Only the rows of the first `count` points; the older points are bases, not rows.
    expect(computedSeries(fixings, 1, 5, change24hRow).map((r) => r.ts)).toEqual([
      '2024-11-18T15:00:00.000Z',
    ]);
  });

  it('a year-over-year series answers growth for the months with the same month a year earlier only', () => {
    // 2023-01 .. 2024-02, the level rising by 1 a month from 100; newest first.
    const months = Array.from({ length: 14 }, (_, i) =>
      p(`${2023 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}-01T00:00:00Z`, 100 + i),
    ).reverse();
    const rows = computedSeries(months, months.length, 14, yoyRow);
    expect(rows).toEqual([
      {
        ts: '2024-02-01T00:00:00.000Z',
        value: expect.closeTo((113 / 101 - 1) * 100, 6),
        period: '2024-02',
        level: 113,
        base_period: '2023-02',
        base_level: 101,
      },
      {
        ts: '2024-01-01T00:00:00.000Z',
        value: 12,
        period: '2024-01',
        level: 112,
        base_period: '2023-01',
        base_level: 100,
      },
    ]);
  });

  it('quakes of a window, and the largest (earlier wins a tie)', () => {
    const q = (id: string, ts: string, magnitude: number | null) => ({
      id,
      ts: new Date(ts),
      magnitude,
      place: '',
    });
    const all = [
      q('a', '2024-11-14T11:30:00Z', 4.9),
      q('b', '2024-11-14T10:59:00Z', 5.5),
      q('c', '2024-11-14T11:45:00Z', 4.9),
      q('d', '2024-11-14T11:50:00Z', null),
    ];
    const hour = quakesIn(all, Date.parse('2024-11-14T11:00:00Z'), Date.parse('2024-11-14T12:00:00Z'));
    expect(hour.map((x) => x.id)).toEqual(['a', 'c', 'd']);
    expect(largestQuake(hour)?.id).toBe('a');
  });

  it('basis is (mark - reference) / reference x 100; a mark with no measured quote rate is excluded', () => {
    expect(basisPercent(101, 100)).toBeCloseTo(1, 12);
    const marks = [
      { venue: 'deribit', symbol: 'BTC-USD', mark_price: 100, index_price: null, ts: new Date() },
      { venue: 'binance_futures', symbol: 'BTC-USDT', mark_price: 100, index_price: null, ts: new Date() },
      { venue: 'x', symbol: 'BTC-EUR', mark_price: 90, index_price: null, ts: new Date() },
    ];
    const { kept, excluded } = marksInUsd(marks, new Map([['USDT', 0.99]]));
    expect(kept.map((m) => m.mark_price_usd)).toEqual([100, 99]);
    expect(excluded).toEqual([{ venue: 'x', reason: expect.stringMatching(/EUR/) }]);
  });

  it('a perp mark older than the max age is excluded as stale', () => {
    const now = Date.parse('2024-11-14T12:00:00Z');
    const mark = (venue: string, ageMs: number) => ({
      venue,
      symbol: 'BTC-USD',
      mark_price: 100,
      index_price: null,
      ts: new Date(now - ageMs),
    });
    const marks = [mark('fresh', 60_000), mark('edge', 180_000), mark('old', 181_000)];
    const { kept, excluded } = freshMarks(marks, now, 180_000);
    expect(kept.map((m) => m.venue)).toEqual(['fresh', 'edge']);
    expect(excluded).toEqual([
      { venue: 'old', reason: expect.stringMatching(/^stale: newest BTC-USD mark is 181 s old/) },
    ]);
  });
});

describe('options computations', () => {
  const at = new Date('2026-01-01T00:00:00Z');
  /** A flat-IV chain priced so that every OTM mark is known: the variance must come out positive and finite. */
  const mark = (expiry: string, strike: number, type: 'call' | 'put', usd: number, oi = 1): OptionMark => ({
    instrument: `${expiry}-${strike}-${type}`,
    ts: at,
    underlying: 'BTC',
    expiry: new Date(expiry),
    strike,
    option_type: type,
    underlying_px: 100,
    mark_price_usd: usd,
    mark_iv: 0.8,
    delta: null,
    gamma: null,
    vega: null,
    theta: null,
    open_interest: oi,
  });
  const chain = (expiry: string, scale: number) => [
    mark(expiry, 80, 'put', 1 * scale, 2),
    mark(expiry, 90, 'put', 3 * scale, 3),
    mark(expiry, 100, 'put', 6 * scale),
    mark(expiry, 100, 'call', 6 * scale),
    mark(expiry, 110, 'call', 3 * scale),
    mark(expiry, 120, 'call', 1 * scale),
  ];

  it('open interest and the put/call ratio', () => {
    const oi = openInterest(chain('2026-01-15T08:00:00Z', 1));
    expect(oi).toMatchObject({ calls: 3, puts: 6, total: 9 });
    expect(putCallOiRatio(oi)).toBe(2);
  });

  it('the VIX formula on one expiry, by hand', () => {
    const v = expiryVariance(chain('2026-01-15T08:00:00Z', 1), at)!;
    const t = (14 * 86_400_000 + 8 * 3_600_000) / (365 * 86_400_000);
    const sum = (10 / 6400) * 1 + (10 / 8100) * 3 + (10 / 10000) * 6 + (10 / 12100) * 3 + (10 / 14400) * 1;
    expect(v.k0).toBe(100);
    expect(v.variance).toBeCloseTo((2 / t) * sum, 5);
  });

  it('interpolates to 30 days between the bracketing expiries', () => {
    const marks = [
      ...chain('2026-01-15T08:00:00Z', 1),
      ...chain('2026-02-12T08:00:00Z', 1.5),
      ...chain('2026-06-26T08:00:00Z', 3),
    ];
    const index = impliedVolIndex(marks, at)!;
    expect(index.near.expiry).toBe('2026-01-15T08:00:00.000Z');
    expect(index.next.expiry).toBe('2026-02-12T08:00:00.000Z');
    const horizon = 30 / 365;
    const expected =
      (index.near.t_years * index.near.variance * index.weights.near +
        index.next.t_years * index.next.variance * index.weights.next) /
      horizon;
    expect(index.value).toBeCloseTo(100 * Math.sqrt(expected), 3);
    expect(index.weights.near).toBeCloseTo(
      (index.next.t_years - horizon) / (index.next.t_years - index.near.t_years),
      5,
    );
  });
});
