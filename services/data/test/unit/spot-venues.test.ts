import { describe, expect, it } from '@jest/globals';
import { LIVE_SPOT_MARKETS, LIVE_SPOT_VENUES, catalogFor, type TradeRow } from '@meridian/contracts';
import { BINANCE } from '../../src/adapters/connectors/spot/binance-spot.js';
import { BITSTAMP } from '../../src/adapters/connectors/spot/bitstamp-spot.js';
import { BYBIT } from '../../src/adapters/connectors/spot/bybit-spot.js';
import { COINBASE } from '../../src/adapters/connectors/spot/coinbase-spot.js';
import { CONNECTORS } from '../../src/adapters/connectors/index.js';
import { KRAKEN } from '../../src/adapters/connectors/spot/kraken-spot.js';
import { OKX } from '../../src/adapters/connectors/spot/okx-spot.js';
import { compareTradeIds, secondBars } from '../../src/domain/spot/second-bars.js';

const VENUES = [BINANCE, COINBASE, KRAKEN, OKX, BYBIT, BITSTAMP];
/** The stablecoins' own USD books, which the reference price converts a stablecoin quote with. */
const QUOTE_RATE_MARKETS = ['USDT-USD', 'USDC-USD'];

const trade = (id: number, ms: number, price: number, size = 1, side: 'buy' | 'sell' = 'buy'): TradeRow => ({
  trade_id: String(id),
  ts: new Date(Date.UTC(2026, 10, 20, 12, 0, 0) + ms).toISOString(),
  price,
  size,
  taker_side: side,
});

describe('1s bars from trades', () => {
  it('builds one bar per complete second: open, high, low, close, volume and count', () => {
    const { bars } = secondBars({
      trades: [
        trade(1, 100, 10),
        trade(2, 1100, 12, 0.5),
        trade(3, 1500, 9, 2),
        trade(4, 1900, 11, 1),
        trade(5, 2200, 13),
      ],
      gapBefore: false,
    });
    expect(bars).toEqual([
      { ts: '2026-11-20T12:00:00.000Z', open: 10, high: 10, low: 10, close: 10, volume: 1, trade_count: 1 },
      { ts: '2026-11-20T12:00:01.000Z', open: 12, high: 12, low: 9, close: 11, volume: 3.5, trade_count: 3 },
    ]);
  });

  it('holds the newest second back until a later poll completes it', () => {
    const first = secondBars({ trades: [trade(1, 100, 10), trade(2, 1100, 12)], gapBefore: false });
    expect(first.bars.map((b) => b.ts)).toEqual(['2026-11-20T12:00:00.000Z']);
    expect(first.pending.map((t) => t.trade_id)).toEqual(['2']);
    const second = secondBars({
      trades: [...first.pending, trade(3, 1800, 14), trade(4, 2100, 15)],
      gapBefore: false,
    });
    expect(second.bars).toEqual([
      { ts: '2026-11-20T12:00:01.000Z', open: 12, high: 14, low: 12, close: 14, volume: 2, trade_count: 2 },
    ]);
  });

  it('leaves out the oldest second when trades before the window may be missing', () => {
    const { bars } = secondBars({
      trades: [trade(1, 900, 10), trade(2, 1100, 12), trade(3, 2100, 13)],
      gapBefore: true,
    });
    expect(bars.map((b) => b.ts)).toEqual(['2026-11-20T12:00:01.000Z']);
  });

  it('counts a trade answered twice (an overlap of two polls) once, in time order whatever the venue order', () => {
    const t = [trade(3, 1200, 12), trade(2, 1100, 11), trade(2, 1100, 11), trade(4, 2000, 1)];
    expect(secondBars({ trades: t, gapBefore: false }).bars).toEqual([
      { ts: '2026-11-20T12:00:01.000Z', open: 11, high: 12, low: 11, close: 12, volume: 2, trade_count: 2 },
    ]);
  });

  it('makes nothing of no trades', () => {
    expect(secondBars({ trades: [], gapBefore: true })).toEqual({ bars: [], pending: [] });
  });

  it('orders trade ids as the numbers they are', () => {
    expect(compareTradeIds('999', '1000')).toBeLessThan(0);
    expect(compareTradeIds('2290000000047000005', '2290000000047000004')).toBeGreaterThan(0);
  });
});

describe('symbol maps of the spot venues', () => {
  it.each(VENUES.map((v) => [v.venue, v] as const))(
    '%s maps exactly the live markets the catalogue says it lists, plus its stablecoin books',
    (venue, spec) => {
      const ours = Object.keys(spec.markets);
      expect(ours.filter((m) => !QUOTE_RATE_MARKETS.includes(m)).sort()).toEqual(
        [...LIVE_SPOT_VENUES[venue]!].sort(),
      );
      for (const m of ours) expect([...LIVE_SPOT_MARKETS, ...QUOTE_RATE_MARKETS]).toContain(m);
      // One venue symbol per market: two of ours on one book would store it twice.
      expect(new Set(Object.values(spec.markets)).size).toBe(ours.length);
    },
  );

  it("spells each venue's own names", () => {
    expect(KRAKEN.markets['BTC-USD']).toBe('XXBTZUSD');
    expect(KRAKEN.markets['BTC-USDT']).toBe('XBTUSDT');
    expect(KRAKEN.markets['DOGE-USD']).toBe('XDGUSD');
    expect(BINANCE.markets['ETH-USDT']).toBe('ETHUSDT');
    expect(BYBIT.markets['SOL-USDC']).toBe('SOLUSDC');
    expect(OKX.markets['XRP-USDT']).toBe('XRP-USDT');
    expect(COINBASE.markets['USDT-USD']).toBe('USDT-USD');
    expect(BITSTAMP.markets['USDC-USD']).toBe('usdcusd');
  });

  it('together serve all 19 live spot markets, each from at least two venues', () => {
    for (const m of LIVE_SPOT_MARKETS) {
      const venues = VENUES.filter((v) => m in v.markets).map((v) => v.venue);
      expect([m, venues.length >= 2]).toEqual([m, true]);
    }
  });

  it('are registered, and their venues are the live catalogue sources of crypto/spot', () => {
    const names = CONNECTORS.map((c) => c.name);
    for (const v of VENUES) expect(names).toContain(v.name);
    const spot = catalogFor('live').products.find((p) => p.category === 'crypto' && p.product === 'spot')!;
    expect([...spot.sources].sort()).toEqual(VENUES.map((v) => v.venue).sort());
  });
});
