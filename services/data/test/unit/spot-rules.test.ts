import { describe, expect, it } from '@jest/globals';
import { confidence } from '../../src/domain/confidence.js';
import { signCursor, verifyCursor } from '../../src/domain/series/cursor.js';
import { fitAnswer, fitRows } from '../../src/domain/series/shape.js';
import { quoteRatesByTime } from '../../src/domain/spot/combine.js';
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
