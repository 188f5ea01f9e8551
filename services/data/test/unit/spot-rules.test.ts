import { describe, expect, it } from '@jest/globals';
import { confidence } from '../../src/domain/confidence.js';
import { signCursor, verifyCursor } from '@meridian/http-kit';
import { fitAnswer, fitRows } from '../../src/domain/series/shape.js';
import { bucketRanges, partialMark, rollUp, type Bar } from '../../src/domain/series/bar.js';
import {
  combineIntoBuckets,
  combineMarkets,
  RATE_LOOKBACK_MS,
  quoteRatesByTime,
  rollUpBuckets,
} from '../../src/domain/spot/combine.js';
import { referencePrice, weightedMedian, type MarketQuote } from '../../src/domain/spot/reference-price.js';

const NOW = Date.parse('2023-03-11T06:00:00Z');
const quote = (venue: string, symbol: string, price: number, ageMs = 0, volume = 1): MarketQuote => ({
  venue,
  symbol,
  base: 'BTC',
  quote: symbol.split('-')[1]!,
  price,
  ts: NOW - ageMs,
  bar_ms: 60_000,
  volume,
});

describe('reference price rule', () => {
  it('converts a depegged USDC leg at its derived rate instead of 1.0', () => {
    const p = referencePrice(
      'BTC-USD',
      [quote('a', 'BTC-USD', 20000), quote('a', 'BTC-USDC', 22000), quote('b', 'BTC-USDC', 22010)],
      NOW,
    )!;
    expect(p.price).toBeCloseTo(20000, 6);
    expect(p.quote_rates[0]).toMatchObject({ quote: 'USDC' });
    expect(p.quote_rates[0]!.rate).toBeCloseTo(20000 / 22000, 12);
  });

  it("one venue's books count once: a venue whose USD book is off cannot outvote honest venues", () => {
    const p = referencePrice(
      'BTC-USD',
      [
        quote('binanceus', 'BTC-USD', 21000),
        quote('binanceus', 'BTC-USDT', 20000),
        quote('binanceus', 'BTC-USDC', 20000),
        quote('kraken', 'BTC-USD', 20000),
        quote('coinbase', 'BTC-USD', 20010),
      ],
      NOW,
    )!;
    expect([20000, 20010]).toContain(p.price);
    expect(p.excluded.map((e) => `${e.venue}:${e.symbol}`).sort()).toEqual([
      'binanceus:BTC-USD',
      'binanceus:BTC-USDC',
      'binanceus:BTC-USDT',
    ]);
    expect(p.excluded[0]!.reason).toMatch(/^outlier: /);
    expect(new Set(p.venues.map((v) => v.venue))).toEqual(new Set(['kraken', 'coinbase']));
  });

  it("converts a venue's books at the quote rate of the other venues, or of a direct Q-USD market", () => {
    const books = [
      quote('a', 'BTC-USD', 20000),
      quote('a', 'BTC-USDT', 20000, 0, 3),
      quote('b', 'BTC-USD', 20100),
      quote('b', 'BTC-USDT', 20000, 0, 3),
    ];
    const crossed = referencePrice('BTC-USD', books, NOW)!;
    // a's USDT book converts at b's rate (20100 / 20000), b's at a's (1.0).
    const usdt = (venue: string) => crossed.venues.find((v) => v.venue === venue && v.symbol === 'BTC-USDT')!;
    expect(usdt('a').price).toBeCloseTo(20100, 6);
    expect(usdt('b').price).toBeCloseTo(20000, 6);
    // One vote per venue, its volume-weighted price over its books: a (20000 + 3 x 20100) / 4 = 20075
    // with weight 4, b (20100 + 3 x 20000) / 4 = 20025 with weight 4; the weighted median takes the lower.
    expect(crossed.price).toBeCloseTo(20025, 6);
    const direct = {
      bar_ms: 60_000,
      venue: 'c',
      symbol: 'USDT-USD',
      base: 'USDT',
      quote: 'USD',
      price: 0.999,
      ts: NOW,
      volume: 1,
    };
    const withDirect = referencePrice('BTC-USD', [...books, direct], NOW)!;
    expect(withDirect.quote_rates).toEqual([{ quote: 'USDT', rate: 0.999, from: ['c:USDT-USD'] }]);
    expect(withDirect.venues.find((v) => v.venue === 'a' && v.symbol === 'BTC-USDT')!.price).toBeCloseTo(
      20000 * 0.999,
      6,
    );
    expect(withDirect.venues.map((v) => v.venue)).not.toContain('c');
  });

  it('as_of is the close of the newest kept bar (open + bar length), never after now', () => {
    const p = referencePrice(
      'BTC-USD',
      [quote('a', 'BTC-USD', 20000, 180_000), quote('b', 'BTC-USD', 20010, 120_000)],
      NOW,
    )!;
    expect(p.as_of).toBe(NOW - 60_000);
    const inProgress = referencePrice('BTC-USD', [quote('a', 'BTC-USD', 20000, 30_000)], NOW)!;
    expect(inProgress.as_of).toBe(NOW);
  });

  it('combined bars take quote rates from traded bars only: an empty bar repeats an old price', () => {
    const bar = (ts: number, close: number, volume: number) => ({
      ts,
      open: close,
      high: close,
      low: close,
      close,
      volume,
      trade_count: null,
    });
    const market = (symbol: string) => ({ venue: 'a', symbol, base: 'BTC', quote: symbol.split('-')[1]! });
    const rates = quoteRatesByTime([
      { market: market('BTC-USD'), bars: [bar(0, 20000, 1), bar(60_000, 20000, 0), bar(120_000, 21000, 1)] },
      { market: market('BTC-USDC'), bars: [bar(0, 21000, 1), bar(60_000, 22000, 1), bar(120_000, 22000, 0)] },
    ]).get('USDC')!;
    expect([...rates.keys()]).toEqual([0]);
    expect(rates.get(0)).toBeCloseTo(20000 / 21000, 12);
  });

  it('drops stale markets and names them', () => {
    const p = referencePrice(
      'BTC-USD',
      [quote('a', 'BTC-USD', 20000), quote('b', 'BTC-USD', 30000, 16 * 60_000)],
      NOW,
    )!;
    expect(p.price).toBe(20000);
    expect(p.excluded).toEqual([{ venue: 'b', symbol: 'BTC-USD', reason: expect.stringMatching(/^stale/) }]);
  });

  it('refuses to price a quote currency with no USD leg anywhere', () => {
    const p = referencePrice('BTC-USD', [quote('a', 'BTC-USD', 20000), quote('b', 'BTC-EUR', 18000)], NOW)!;
    expect(p.excluded[0]!.reason).toMatch(/no USD rate for EUR/);
  });

  it('weights the median by volume', () => {
    expect(
      weightedMedian([
        { price: 1, weight: 1 },
        { price: 2, weight: 5 },
        { price: 3, weight: 1 },
      ]),
    ).toBe(2);
    expect(
      weightedMedian([
        { price: 1, weight: 10 },
        { price: 2, weight: 1 },
        { price: 3, weight: 1 },
      ]),
    ).toBe(1);
  });

  it('scores confidence by venues, dispersion and staleness', () => {
    expect(confidence({ venues: 2, dispersion: 0, staleness_ms: 0, max_age_ms: 1 })).toBe(0.75);
    expect(confidence({ venues: 3, dispersion: 0.01, staleness_ms: 0, max_age_ms: 1 })).toBe(0.322);
    expect(confidence({ venues: 0, dispersion: 0, staleness_ms: 0, max_age_ms: 1 })).toBe(0);
  });
});

describe('series plumbing', () => {
  it('refuses a cursor that was altered or signed with another key', () => {
    const c = signCursor({ before: 1 }, 'k'.repeat(32));
    expect(verifyCursor(c, 'k'.repeat(32))).toEqual({ before: 1 });
    expect(verifyCursor(c, 'j'.repeat(32))).toBeUndefined();
    const forged = Buffer.from(JSON.stringify({ before: 2 })).toString('base64url') + c.slice(c.indexOf('.'));
    expect(verifyCursor(forged, 'k'.repeat(32))).toBeUndefined();
  });

  it('drops whole rows, oldest first, to fit the budget, and always keeps one', () => {
    const rows = Array.from({ length: 100 }, (_, i) => ({ i, pad: 'x'.repeat(36) }));
    const fit = fitRows(rows, 1600);
    expect(fit.kept + fit.dropped).toBe(100);
    expect(fit.kept).toBeGreaterThan(0);
    expect(fit.kept).toBeLessThan(100);
    expect(fitRows(rows, 10).kept).toBe(1);
  });

  it('fits the whole answer, envelope measured, into max_response_tokens x 4 characters', () => {
    const rows = Array.from({ length: 100 }, (_, i) => ({ i, pad: 'x'.repeat(36) }));
    const method = 'm'.repeat(900);
    const page = (dropped: number, over: boolean) =>
      JSON.stringify({ data: rows.slice(dropped), meta: { over }, provenance: { method } });
    for (const tokens of [200, 260, 400, 1000, 2000]) {
      const { dropped, body } = fitAnswer(rows, tokens, page);
      expect(dropped).toBeLessThan(100);
      if (body.length > tokens * 4)
        expect({ dropped, over: JSON.parse(body).meta.over }).toEqual({ dropped: 99, over: true });
      else if (dropped > 0) expect(page(dropped - 1, false).length).toBeGreaterThan(tokens * 4);
    }
    expect(fitAnswer(rows, undefined, page).dropped).toBe(0);
  });
});

describe('combined bars', () => {
  const MINUTE = 60_000;
  const HOUR = 60 * MINUTE;
  const market = (venue: string, symbol: string) => ({
    venue,
    symbol,
    base: 'BTC',
    quote: symbol.split('-')[1]!,
  });
  /** A USD book, and a USDC book whose peg slides from 1.0 to 0.8 over three hours, with holes. */
  const minutes = Array.from({ length: 180 }, (_, i) => i * MINUTE);
  const bar = (ts: number, price: number, volume = 1): Bar => ({
    ts,
    open: price,
    high: price * 1.001,
    low: price * 0.999,
    close: price,
    volume,
    trade_count: 2,
  });
  const usd = minutes.filter((t) => t % (7 * MINUTE) !== 0).map((t) => bar(t, 20000 + t / MINUTE));
  const usdc = minutes
    .filter((t) => t % (11 * MINUTE) !== 0)
    .map((t) => bar(t, (20000 + t / MINUTE) / (1 - t / (900 * MINUTE))));
  const series = [
    { market: market('a', 'BTC-USD'), bars: usd },
    { market: market('a', 'BTC-USDC'), bars: usdc },
    { market: market('b', 'BTC-USDC'), bars: usdc.filter((b) => b.ts < 40 * MINUTE || b.ts > 50 * MINUTE) },
  ];

  it('an hour is the roll-up of its combined 1m bars, each at its own minute rate, not the hour converted at one rate', () => {
    const hours = combineIntoBuckets(series, 0, HOUR);
    expect(hours.map((h) => h.bar)).toEqual(rollUp(combineMarkets(series).bars, HOUR));
    // Minutes 0, 77 and 154 have no bar anywhere: gaps.
    expect(hours.map((h) => h.bars)).toEqual([59, 59, 59]);
    // The USDC legs are converted minute by minute: the combined hour stays within 0.2 % of the USD book,
    // while the USDC books' own hour spans 20 % (converted at one rate, one end of it would be far off).
    const usdHigh = Math.max(...usd.filter((b) => b.ts >= 2 * HOUR).map((b) => b.high));
    expect(Math.abs(hours[2]!.bar!.high / usdHigh - 1)).toBeLessThan(0.002);
    expect(hours[0]!.members).toEqual([
      { venue: 'a', symbol: 'BTC-USD', bars: 51, left_out: 0, last: 59 * MINUTE },
      { venue: 'a', symbol: 'BTC-USDC', bars: 54, left_out: 0, last: 59 * MINUTE },
      { venue: 'b', symbol: 'BTC-USDC', bars: 44, left_out: 0, last: 59 * MINUTE },
    ]);
  });

  it('a range combined from RATE_LOOKBACK_MS before is the same as from an unbounded read', () => {
    const from = 35 * MINUTE; // a minute without a USD bar: its rate comes from the minute before
    const cut = series.map((s) => ({ ...s, bars: s.bars.filter((b) => b.ts >= from - RATE_LOOKBACK_MS) }));
    expect(combineMarkets(cut, from).bars).toEqual(combineMarkets(series).bars.filter((b) => b.ts >= from));
    const tooShort = series.map((s) => ({ ...s, bars: s.bars.filter((b) => b.ts >= from) }));
    expect(combineMarkets(tooShort, from).bars[0]).not.toEqual(combineMarkets(series, from).bars[0]);
  });

  it('days from hours equal days from the combined 1m bars; a bucket without any rate is a gap with its tally', () => {
    const noRate = series.map((s) =>
      s.market.quote === 'USD' ? { ...s, bars: s.bars.filter((b) => b.ts < HOUR) } : s,
    );
    const hours = combineIntoBuckets(noRate, 0, HOUR);
    const day = rollUpBuckets(hours, 24 * HOUR);
    expect(day.map((d) => d.bar)).toEqual(rollUp(combineMarkets(noRate).bars, 24 * HOUR));
    expect(hours[2]).toMatchObject({ bar: undefined, bars: 0 });
    expect(hours[2]!.members.map((m) => [m.symbol, m.left_out === m.bars, m.last])).toEqual([
      ['BTC-USDC', true, null],
      ['BTC-USDC', true, null],
    ]);
    const left = day[0]!.members.find((m) => m.venue === 'a' && m.symbol === 'BTC-USDC')!;
    // Carried for 5 minutes after the last USD bar (59), then left out.
    expect(left.left_out).toBe(usdc.filter((b) => b.ts > 64 * MINUTE).length);
  });

  it('finds the buckets a change reaches, without the stretches between', () => {
    expect(
      bucketRanges(
        [
          { from: 58 * MINUTE, to: 63 * MINUTE },
          { from: 10 * HOUR, to: 10 * HOUR + 1 },
          { from: 2 * MINUTE, to: 3 * MINUTE },
        ],
        HOUR,
      ),
    ).toEqual([
      { from: 0, to: 2 * HOUR },
      { from: 10 * HOUR, to: 11 * HOUR },
    ]);
  });
});

describe('a roll-up bar the stored data covers only in part', () => {
  const DAY = 86_400_000;
  const day = Date.parse('2026-11-24T00:00:00Z');
  // A fresh start at 21:50 the evening before the 24th; stored up to 14:03 on the 25th.
  const covered = { from: day - 2 * 3_600_000 - 10 * 60_000, to: day + DAY + 14 * 3_600_000 + 3 * 60_000 };

  it('marks the first day, from the first stored bar to the end of that day', () => {
    expect(partialMark(day - DAY, DAY, covered)).toEqual({
      partial: true,
      covered_from: '2026-11-23T21:50:00.000Z',
      covered_to: '2026-11-24T00:00:00.000Z',
    });
  });

  it('leaves a day covered whole unmarked, bounds included', () => {
    expect(partialMark(day, DAY, covered)).toBeUndefined();
    expect(partialMark(day, DAY, { from: day, to: day + DAY })).toBeUndefined();
  });

  it('marks the bucket in progress up to the newest close, at every interval', () => {
    expect(partialMark(day + DAY, DAY, covered)).toEqual({
      partial: true,
      covered_from: '2026-11-25T00:00:00.000Z',
      covered_to: '2026-11-25T14:03:00.000Z',
    });
    expect(partialMark(day + DAY + 12 * 3_600_000, 4 * 3_600_000, covered)?.covered_to).toBe(
      '2026-11-25T14:03:00.000Z',
    );
    expect(partialMark(day + DAY + 13 * 3_600_000, 3_600_000, covered)).toBeUndefined();
  });

  it('marks a bucket that both starts before the data and is still in progress', () => {
    expect(partialMark(day, DAY, { from: day + 60_000, to: day + 120_000 })).toEqual({
      partial: true,
      covered_from: '2026-11-24T00:01:00.000Z',
      covered_to: '2026-11-24T00:02:00.000Z',
    });
  });
});
