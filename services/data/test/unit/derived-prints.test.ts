import { describe, expect, it } from '@jest/globals';
import { loadRecordedBars, RECORDED_MARKETS } from '../../src/adapters/parsers/spot/recorded-market.js';
import { rollUp, type Bar } from '../../src/domain/series/bar.js';
import { derivePrints, MAX_PRINTS, secondBars } from '../../src/domain/spot/derived-prints.js';

const MINUTE = 60_000;
const bar = (b: Partial<Bar>): Bar => ({
  ts: Date.parse('2026-11-25T10:00:00Z'),
  open: 100,
  high: 105,
  low: 95,
  close: 102,
  volume: 3,
  trade_count: 12,
  ...b,
});
const units = (x: number) => Math.round(x * 1e8);

/** Prints derived from a 1m bar for the offline replay: consistent with the bar, the same every time. */
describe('prints derived from a 1m bar', () => {
  it('opens at the open, closes at the close, visits high and low, stays within them', () => {
    const b = bar({});
    const prints = derivePrints(b, 'v:BTC-USD');
    expect(prints).toHaveLength(12);
    expect(prints[0]!.price).toBe(b.open);
    expect(prints[prints.length - 1]!.price).toBe(b.close);
    const prices = prints.map((p) => p.price);
    expect(Math.max(...prices)).toBe(b.high);
    expect(Math.min(...prices)).toBe(b.low);
    // An up minute goes to its low first.
    expect(prices.indexOf(b.low)).toBeLessThan(prices.indexOf(b.high));
    for (const p of prints) {
      expect(p.ts).toBeGreaterThanOrEqual(b.ts);
      expect(p.ts).toBeLessThan(b.ts + MINUTE);
      expect(p.size).toBeGreaterThan(0);
    }
    expect(prints.map((p) => p.ts)).toEqual([...prints.map((p) => p.ts)].sort((x, y) => x - y));
  });

  it('sums the sizes to the volume exactly (1e-8 units), and the count to the trade count', () => {
    for (const b of [
      bar({ volume: 0.00598024, trade_count: 2, high: 102, low: 100 }),
      bar({ volume: 54.904622 }),
    ]) {
      const prints = derivePrints(b, 'v:BTC-USD');
      expect(prints.reduce((s, p) => s + units(p.size), 0)).toBe(units(b.volume));
      expect(prints).toHaveLength(b.trade_count!);
    }
  });

  it('chooses a count from the volume where the venue gives none, at least the prices to visit, at most the cap', () => {
    expect(derivePrints(bar({ trade_count: null, volume: 1 }), 's')).toHaveLength(4);
    expect(derivePrints(bar({ trade_count: null, volume: 0.01 }), 's')).toHaveLength(4);
    expect(derivePrints(bar({ trade_count: null, volume: 100 }), 's')).toHaveLength(MAX_PRINTS);
    // Kraken counts 1 trade over a minute that moved: the path still needs its four prices.
    expect(derivePrints(bar({ trade_count: 1 }), 's')).toHaveLength(4);
  });

  it('derives nothing from a minute without volume', () => {
    expect(derivePrints(bar({ volume: 0, open: 100, high: 100, low: 100, close: 100 }), 's')).toEqual([]);
  });

  it('is deterministic per bar and seed, and differs between markets', () => {
    const b = bar({});
    expect(derivePrints(b, 'binanceus:BTC-USD')).toEqual(derivePrints(b, 'binanceus:BTC-USD'));
    expect(derivePrints(b, 'binanceus:BTC-USD')).not.toEqual(derivePrints(b, 'kraken:BTC-USDC'));
  });

  it('gives both taker sides, buys on upticks and sells on downticks', () => {
    const prints = derivePrints(bar({ trade_count: 40 }), 's');
    const sides = new Set(prints.map((p) => p.taker_side));
    expect(sides).toEqual(new Set(['buy', 'sell']));
    for (let i = 1; i < prints.length; i++) {
      if (prints[i]!.price > prints[i - 1]!.price) expect(prints[i]!.taker_side).toBe('buy');
      if (prints[i]!.price < prints[i - 1]!.price) expect(prints[i]!.taker_side).toBe('sell');
    }
  });

  it('rolls up through 1s bars to the recorded 1m bar itself, over a recorded day of every market', () => {
    for (const market of RECORDED_MARKETS) {
      const day = loadRecordedBars(market).slice(0, 1440);
      let buys = 0;
      let sells = 0;
      for (const b of day) {
        const prints = derivePrints(b, `${market.venue}:${market.symbol}`);
        buys += prints.filter((p) => p.taker_side === 'buy').length;
        sells += prints.filter((p) => p.taker_side === 'sell').length;
        const seconds = secondBars(prints, b.trade_count !== null);
        if (b.volume === 0) {
          expect(seconds).toEqual([]);
          continue;
        }
        const [minute] = rollUp(seconds, MINUTE);
        expect([market.symbol, b.ts, minute!.open, minute!.high, minute!.low, minute!.close]).toEqual([
          market.symbol,
          b.ts,
          b.open,
          b.high,
          b.low,
          b.close,
        ]);
        expect(units(minute!.volume)).toBe(units(b.volume));
        if (b.trade_count === null) expect(minute!.trade_count).toBeNull();
        else expect(minute!.trade_count).toBe(prints.length);
      }
      expect(buys).toBeGreaterThan(0);
      expect(sells).toBeGreaterThan(0);
    }
  });
});
