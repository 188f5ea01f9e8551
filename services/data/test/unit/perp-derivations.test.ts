import { describe, expect, it } from '@jest/globals';
import {
  loadRecordedPerp,
  parsePerpBars,
  RECORDED_PERPS,
} from '../../src/adapters/parsers/derivatives/recorded-perps.js';
import { RECORDING } from '../../src/adapters/parsers/spot/recorded-market.js';
import {
  derivedMark,
  estimatedFunding,
  fundingIntervalStart,
  premiumIndex,
  takerFlow,
} from '../../src/domain/derivatives/perp-derivations.js';
import { valueAt } from '../../src/domain/series/bar-columns.js';

const HEADER =
  'open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore';
/** The first two BTCUSDT minutes of the recording, as Binance's archive writes them. */
const FIRST =
  '1678233600000,22187.10,22188.50,22177.00,22185.70,614.794,1678233659999,13638288.04620,3302,201.029,4459613.60270,0';
const SECOND =
  '1678233660000,22185.70,22190.00,22180.10,22188.40,300.000,1678233719999,6655920.00000,2000,150.000,3327960.00000,0';

describe("the perpetuals' 1m bar parser", () => {
  it('reads every column of Binance USD-M klines, header or not, ascending by open time', () => {
    const bars = parsePerpBars([HEADER, SECOND, FIRST, ''].join('\n'));
    expect(bars).toEqual([
      {
        ts: 1678233600000,
        open: 22187.1,
        high: 22188.5,
        low: 22177,
        close: 22185.7,
        volume: 614.794,
        quote_volume: 13638288.0462,
        trade_count: 3302,
        taker_buy_volume: 201.029,
        taker_buy_quote_volume: 4459613.6027,
      },
      expect.objectContaining({ ts: 1678233660000, close: 22188.4, taker_buy_volume: 150 }),
    ]);
    expect(parsePerpBars(`${FIRST}\r\n`)).toHaveLength(1);
  });

  it.each([
    ['a missing column', FIRST.split(',').slice(0, 11).join(',')],
    ['a price that is not a number', FIRST.replace('22185.70', 'x')],
    ['a close above the high', FIRST.replace('22185.70', '22190.00')],
    ['more taker-bought than traded', FIRST.replace('201.029', '700.000')],
    ['a zero price', FIRST.replace('22177.00', '0')],
  ])('refuses %s, naming the line', (_what, line) => {
    expect(() => parsePerpBars([HEADER, SECOND, line].join('\n'))).toThrow(/^line 3 /);
  });

  it('ships both perpetuals for every minute of the spot recording, none missing', () => {
    for (const perp of RECORDED_PERPS) {
      const { bars, takerBuyVolume } = loadRecordedPerp(perp);
      expect([perp.symbol, bars.length]).toEqual([perp.symbol, RECORDING.spanMs / 60_000]);
      for (let i = 0; i < bars.length; i++)
        if (valueAt(bars.ts, i) !== RECORDING.start + i * 60_000)
          throw new Error(`${perp.symbol}: gap at ${i}`);
      expect(takerBuyVolume.every((v, i) => v >= 0 && v <= valueAt(bars.volume, i))).toBe(true);
    }
    expect(RECORDED_PERPS.map((p) => [p.symbol, p.index?.symbol])).toEqual([
      ['BTC-USDT', 'BTC-USDT'],
      ['ETH-USDT', undefined],
    ]);
  });
});

describe('the derived mark', () => {
  it("is the index plus the window's mean premium when an index was recorded", () => {
    const mark = derivedMark([
      { close: 101, index: 100 },
      { close: 102, index: 100.5 },
      { close: 103, index: 101 },
    ]);
    // Premiums 1, 1.5 and 2: mean 1.5 over the index now, 101.
    expect(mark).toEqual({ mark_price: 102.5, index_price: 101 });
  });

  it('averages only the minutes that have an index', () => {
    expect(
      derivedMark([
        { close: 50, index: undefined },
        { close: 102, index: 100 },
        { close: 104, index: 101 },
      ]),
    ).toEqual({ mark_price: 103.5, index_price: 101 });
  });

  it('is the mean trade price of the window without an index, and says there is none', () => {
    expect(derivedMark([1600, 1601, 1605].map((close) => ({ close, index: undefined })))).toEqual({
      mark_price: 1602,
      index_price: null,
    });
    expect(() => derivedMark([])).toThrow();
  });
});

describe("the funding estimate (Binance's formula)", () => {
  it('is the interest rate while the premium stays within 0.05 % of it', () => {
    expect(estimatedFunding([0.0001, 0.0001])).toBeCloseTo(0.0001, 12);
    expect(estimatedFunding([0.0003])).toBeCloseTo(0.0001, 12);
    expect(estimatedFunding([-0.0003])).toBeCloseTo(0.0001, 12);
  });

  it('follows the premium beyond the clamp', () => {
    // P = 0.001: clamp(0.0001 - 0.001) = -0.0005, so 0.0005; P = -0.002: clamp(0.0021) = 0.0005.
    expect(estimatedFunding([0.001])).toBeCloseTo(0.0005, 12);
    expect(estimatedFunding([-0.002])).toBeCloseTo(-0.0015, 12);
  });

  it('weighs later minutes more (weights 1..n)', () => {
    // (1 x 0 + 2 x 0.0009) / 3 = 0.0006; clamp(0.0001 - 0.0006) = -0.0005: 0.0001.
    expect(estimatedFunding([0, 0.0009])).toBeCloseTo(0.0001, 12);
    // (1 x 0.0009 + 2 x 0) / 3 = 0.0003, inside the clamp: the interest rate.
    expect(estimatedFunding([0.0009, 0])).toBeCloseTo(0.0001, 12);
    // (1 x 0 + 2 x 0 + 3 x 0.002) / 6 = 0.001: 0.0005.
    expect(estimatedFunding([0, 0, 0.002])).toBeCloseTo(0.0005, 12);
    expect(estimatedFunding([])).toBeUndefined();
    // A minute without an index is left out: the weights run over the minutes that have one.
    expect(estimatedFunding([0, NaN, 0.002])).toBeCloseTo(estimatedFunding([0, 0.002])!, 12);
    expect(estimatedFunding(Float64Array.of(NaN))).toBeUndefined();
  });

  it('takes the premium index over the index and the 8-hour intervals of the UTC day', () => {
    expect(premiumIndex(101, 100)).toBeCloseTo(0.01, 12);
    expect(fundingIntervalStart(Date.parse('2023-03-08T13:45:00Z'))).toBe(Date.parse('2023-03-08T08:00:00Z'));
    expect(fundingIntervalStart(Date.parse('2023-03-08T16:00:00Z'))).toBe(Date.parse('2023-03-08T16:00:00Z'));
    expect(fundingIntervalStart(Date.parse('2023-03-08T07:59:59Z'))).toBe(Date.parse('2023-03-08T00:00:00Z'));
  });
});

describe('the taker side of a bar', () => {
  it('splits the volume into what takers bought and sold, with their ratios', () => {
    const [bar] = parsePerpBars(FIRST);
    expect(takerFlow(bar!)).toEqual({
      buy_volume: 201.029,
      sell_volume: 413.765,
      buy_quote_volume: 4459613.6027,
      sell_quote_volume: 9178674.4435,
      buy_share: 0.326986,
      buy_sell_ratio: 0.485853,
    });
  });

  it('has no ratio where a side is empty', () => {
    const none = { volume: 0, quote_volume: 0, taker_buy_volume: 0, taker_buy_quote_volume: 0 };
    expect(takerFlow(none)).toMatchObject({ buy_share: null, buy_sell_ratio: null });
    const allBought = { volume: 2, quote_volume: 10, taker_buy_volume: 2, taker_buy_quote_volume: 10 };
    expect(takerFlow(allBought)).toMatchObject({ sell_volume: 0, buy_share: 1, buy_sell_ratio: null });
  });
});
